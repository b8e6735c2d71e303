/// Pure formatting of progress: bars for terminals, plain lines for logs and pipes.
enum ProgressFormat {
    /// The figures one progress report is made of.
    struct Snapshot: Equatable {
        /// What is being done, for example "backup".
        var label: String
        /// What is counted, for example "pages" or "rows".
        var unit: String
        /// Units done.
        var completed: Int64
        /// Units in all, when known.
        var total: Int64?
        /// Seconds since the work started.
        var elapsed: Double
    }

    /// Units per second so far, or nil before there is anything to measure.
    static func rate(_ snapshot: Snapshot) -> Double? {
        guard snapshot.elapsed > 0.05, snapshot.completed > 0 else { return nil }
        return Double(snapshot.completed) / snapshot.elapsed
    }

    /// Seconds left at the current rate, when the total is known.
    static func remaining(_ snapshot: Snapshot) -> Double? {
        guard let total = snapshot.total, let rate = rate(snapshot), rate > 0 else { return nil }
        return Double(max(total - snapshot.completed, 0)) / rate
    }

    /// `backup [=====>     ]  45%  1300/2900 pages  5678 pages/s  ETA 0:03`, for a terminal.
    static func bar(_ snapshot: Snapshot, width: Int = 24) -> String {
        if snapshot.unit.isEmpty { return "\(snapshot.label)  working  \(clock(snapshot.elapsed))" }
        var parts = [snapshot.label]
        if let total = snapshot.total, total > 0 {
            let fraction = min(max(Double(snapshot.completed) / Double(total), 0), 1)
            let filled = Int(fraction * Double(width))
            let head = filled < width ? ">" : ""
            let body = String(repeating: "=", count: max(filled - head.count, 0)) + head
            parts.append("[" + body + String(repeating: " ", count: width - body.count) + "]")
            parts.append(percent(fraction))
            parts.append("\(snapshot.completed)/\(total) \(snapshot.unit)")
        } else {
            parts.append("\(snapshot.completed) \(snapshot.unit)")
        }
        if let rate = rate(snapshot) { parts.append("\(Int(rate.rounded())) \(snapshot.unit)/s") }
        if let remaining = remaining(snapshot) {
            parts.append("ETA " + clock(remaining))
        } else {
            parts.append(clock(snapshot.elapsed))
        }
        return parts.joined(separator: "  ")
    }

    /// `backup: 1300/2900 pages (45%), 5678 pages/s, ETA 3s`, for logs and pipes.
    static func line(_ snapshot: Snapshot) -> String {
        if snapshot.unit.isEmpty { return "\(snapshot.label): working, \(seconds(snapshot.elapsed)) elapsed" }
        var text = "\(snapshot.label): \(snapshot.completed)"
        if let total = snapshot.total, total > 0 {
            text += "/\(total) \(snapshot.unit) (\(percent(Double(snapshot.completed) / Double(total))))"
        } else {
            text += " \(snapshot.unit)"
        }
        if let rate = rate(snapshot) { text += ", \(Int(rate.rounded())) \(snapshot.unit)/s" }
        if let remaining = remaining(snapshot) {
            text += ", ETA \(Int(remaining.rounded(.up)))s"
        } else {
            text += ", \(seconds(snapshot.elapsed)) elapsed"
        }
        return text
    }

    /// `backup: done, 2900 pages in 0.5s`.
    static func summary(_ snapshot: Snapshot) -> String {
        if snapshot.unit.isEmpty { return "\(snapshot.label): done in \(seconds(snapshot.elapsed))" }
        return "\(snapshot.label): done, \(snapshot.completed) \(snapshot.unit) in \(seconds(snapshot.elapsed))"
    }

    /// `45%`.
    static func percent(_ fraction: Double) -> String {
        "\(Int((min(max(fraction, 0), 1) * 100).rounded(.down)))%"
    }

    /// `1:05` or `1:02:05`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let mm = minutes < 10 && hours > 0 ? "0\(minutes)" : "\(minutes)"
        let ss = secs < 10 ? "0\(secs)" : "\(secs)"
        return hours > 0 ? "\(hours):\(mm):\(ss)" : "\(mm):\(ss)"
    }

    /// `0.5s`, `12s`.
    static func seconds(_ value: Double) -> String {
        value < 10 ? "\((value * 10).rounded() / 10)s" : "\(Int(value.rounded()))s"
    }
}
