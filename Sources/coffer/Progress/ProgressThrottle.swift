/// Decides when a plain progress line is due, for standard error that is not a terminal.
///
/// Logs and CI output keep every line, so they get few: a line needs at least
/// ``minimumInterval`` since the previous one and, when the total is known, at least
/// ``minimumFraction`` of it done since then. A job of known size therefore prints at most
/// ten lines (plus its summary) however fast it runs, and one of unknown size at most one a
/// second. Pure and clock-free, so it is tested with made-up times.
struct ProgressThrottle: Equatable {
    /// Seconds that must pass between two lines.
    static let minimumInterval = 1.0
    /// The share of a known total that must be done between two lines.
    static let minimumFraction = 0.1

    /// Seconds since the start when the last line was printed (0 before the first).
    private(set) var lastLine = 0.0
    /// Units done when the last line was printed.
    private(set) var lastCompleted: Int64 = 0

    /// Whether a line is due at `elapsed` seconds with `completed` of `total` units done, and
    /// if so records it as printed.
    ///
    /// - Parameter force: Print even if nothing advanced (a heartbeat for work that reports no
    ///   units); the interval still applies.
    mutating func lineIsDue(completed: Int64, total: Int64?, elapsed: Double, force: Bool = false) -> Bool {
        guard elapsed - lastLine >= Self.minimumInterval else { return false }
        let advanced = completed - lastCompleted
        if !force {
            guard advanced > 0 else { return false }
            if let total, total > 0, Double(advanced) < Double(total) * Self.minimumFraction { return false }
        }
        lastLine = elapsed
        lastCompleted = completed
        return true
    }
}
