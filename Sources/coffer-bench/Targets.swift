import Foundation

/// The performance targets of the "Benchmarks" issue, judged on one configuration's figures.
///
/// They are printed as `#` lines after the configuration's figures (`# target W1r … ok` or `… MISS`); a target
/// whose figures were not measured is skipped.
enum Targets {
    /// The verdict lines for `figures`, keyed `<implementation>:<id>` (bare ids for codec-only figures).
    static func verdicts(_ figures: [String: WorkloadResult]) -> [String] {
        var lines: [String] = []
        func perOp(_ key: String) -> Double? {
            guard let figure = figures[key], figure.ops > 0 else { return nil }
            return figure.seconds / Double(figure.ops)
        }
        func judge(_ name: String, _ value: Double?, _ limit: Double?, _ detail: String, atMost: Bool = true) {
            guard let value, let limit else { return }
            let ok = atMost ? value <= limit : value >= limit
            lines.append(
                "target \(name) \(detail)=\(format(value)) \(atMost ? "limit<=" : "limit>=")\(format(limit)) "
                    + (ok ? "ok" : "MISS"))
        }
        // Storage engine alone: Coffer time at most 1/0.75 of C's (throughput at least 0.75×).
        for (id, baseline) in [("W1r", "W1"), ("W3r", "W3"), ("W4r", "W4")] {
            judge(id, ratio(perOp("CofferRaw:\(id)"), perOp("C:\(baseline)")), 1 / 0.75, "time_vs_c")
        }
        judge("W2", ratio(perOp("Coffer:W2"), perOp("C:W2")), 1 / 0.8, "time_vs_c")
        // W2 encodes each record and C's W2 does not: C's time plus the encoding alone is a floor no store can beat.
        if let floor = ratio(sum(perOp("C:W2"), perOp("JSONENC")), perOp("C:W2")) {
            let engine = ratio(perOp("CofferRaw:W2r"), perOp("C:W2")).map { " engine_alone_w2r=\(format($0))" } ?? ""
            lines.append("target W2 (reference) c_plus_json_encoding=\(format(floor))" + engine)
        }
        // Codable: at most 1.25 × (C storage time + JSON coding time alone), per operation.
        for (id, coding) in [("W1", "JSONENC"), ("W3", "JSONDEC"), ("W4", "JSONDEC")] {
            let floor = sum(perOp("C:\(id)"), perOp(coding))
            judge(id, ratio(perOp("Coffer:\(id)"), floor), 1.25, "time_vs_c_plus_json")
        }
        // The binary codec: at most 1.25 × (C storage time + the binary codec's own time); W2b at most 1.35 × C.
        for (id, coding) in [("W1", "BINENC"), ("W3", "BINDEC"), ("W4", "BINDEC")] {
            let floor = sum(perOp("C:\(id)"), perOp(coding))
            judge(id + "b", ratio(perOp("CofferBin:\(id)b"), floor), 1.25, "time_vs_c_plus_binary")
        }
        judge("W2b", ratio(perOp("CofferBin:W2b"), perOp("C:W2")), 1.35, "time_vs_c")
        // The codec alone: a benchmark record encoded within 1 µs and decoded within 1.2 µs, ≥ 5× JSON's speed.
        judge("BINENC", perOp("BINENC").map { $0 * 1e6 }, 1, "us_per_record")
        judge("BINDEC", perOp("BINDEC").map { $0 * 1e6 }, 1.2, "us_per_record")
        for shape in ["record", "wide50", "array1000"] {
            for direction in ["enc", "dec"] {
                let json = perOp("CODEC-\(shape)-json-\(direction)")
                judge(
                    "CODEC-\(shape)-\(direction)", ratio(json, perOp("CODEC-\(shape)-binary-\(direction)")), 5,
                    "x_vs_json", atMost: false)
            }
        }
        judge("W6", figures["Coffer:W6"]?.opsPerSecond, 2_000_000, "ops_per_s", atMost: false)
        // Issue 29 (its limits are in instructions; these are the timed counterparts): lent-bytes enumeration at
        // most 1.15 × C's W4, and with both writers at one fixed rate Coffer's readers at least 0.75 × C's.
        judge("W4l", ratio(perOp("CofferRaw:W4l"), perOp("C:W4")), 1.15, "time_vs_c")
        for readers in [1, 2, 4] {
            let id = "W10f-r\(readers)"
            guard let c = figures["C:\(id)"]?.opsPerSecond, c > 0 else { continue }
            judge(id, figures["CofferRaw:\(id)"].map { $0.opsPerSecond / c }, 0.75, "reads_vs_c", atMost: false)
        }
        // RTreeIndex: inserts at most 1.6 × the same inserts without it; a 100-row box query within 1 ms (the
        // target is for the recommended settings; the library defaults' figure is judged the same way).
        judge("W1t", ratio(perOp("CofferExt:W1t"), perOp("Coffer:W1")), 1.6, "time_vs_coffer_w1")
        judge("Q1t", figures["CofferExt:Q1t"]?.seconds, 0.001, "median_seconds")
        // AutoView: bulk inserts at most 1.5 × the same inserts without it (1.2 × in memory); an insert into a group of a
        // million rows at most 1.5 × one into a group of 10,000; a cached lookup within 20 µs; a reader's changes for
        // one commit within 50 µs. W2v's 2 × is what the issue expects, not a target.
        judge("W1v", ratio(perOp("CofferView:W1v"), perOp("Coffer:W1")), 1.5, "time_vs_coffer_w1")
        judge("W1vm", ratio(perOp("CofferView:W1vm"), perOp("Coffer:W1")), 1.2, "time_vs_coffer_w1")
        judge("V1", ratio(figures["CofferView:V1"]?.seconds, figures["CofferView:V2"]?.seconds), 1.5, "vs_v2")
        judge("V3-key", figures["CofferView:V3-key"]?.seconds, 0.000_020, "median_seconds")
        judge("V3-index", figures["CofferView:V3-index"]?.seconds, 0.000_020, "median_seconds")
        judge("V4", figures["CofferView:V4"]?.seconds, 0.000_050, "median_seconds")
        judge("W2v (expected)", ratio(perOp("CofferView:W2v"), perOp("Coffer:W2")), 2, "time_vs_coffer_w2")
        // Multi-process support: the per-transaction check at most 2 µs; small commits at most 1.3 × without it.
        judge(
            "R1p", difference(perOp("CofferProcess:R1p"), perOp("CofferProcess:R1p0")).map { $0 * 1e6 }, 2,
            "extra_us_per_tx")
        judge("W2p", ratio(perOp("CofferProcess:W2p"), perOp("CofferProcess:W2p0")), 1.3, "time_vs_w2p0")
        for kind in ["raw", "keyfile", "passphrase"] {
            judge("W11-conn2-\(kind)", figures["Coffer:W11-conn2-\(kind)"]?.seconds, 0.001, "seconds")
        }
        if let raw = figures["Coffer:W11-raw"]?.seconds, let kdf = figures["Coffer:W11-kdf"]?.seconds {
            judge("W11-keyfile", figures["Coffer:W11-keyfile"]?.seconds, 2 * raw + kdf, "seconds(limit=2*raw+kdf)")
        }
        if let small = perOp("Coffer:W3") {
            judge("W9-W3", ratio(perOp("Coffer:W9-W3"), small), 1.5, "per_op_vs_small_n")
        }
        if let peak = figures["Coffer:W9-W4"]?.extra.first(where: { $0.name == "child_peak_kb" }).flatMap({
            Int($0.value)
        }) {
            judge("W9-W4-rss", Double(peak) / 1024, 200, "child_peak_mb")
        }
        if let one = figures["Coffer:W10-r1"]?.opsPerSecond, one > 0 {
            judge("W10-r2", figures["Coffer:W10-r2"].map { $0.opsPerSecond / one }, 1.6, "reads_vs_r1", atMost: false)
            if let cOne = figures["C:W10-r1"]?.opsPerSecond, cOne > 0, let cTwo = figures["C:W10-r2"]?.opsPerSecond {
                lines.append("target W10-r2 (reference) C reads_vs_r1=\(format(cTwo / cOne))")
            }
        }
        return lines
    }

    private static func ratio(_ value: Double?, _ reference: Double?) -> Double? {
        guard let value, let reference, reference > 0 else { return nil }
        return value / reference
    }

    private static func difference(_ value: Double?, _ reference: Double?) -> Double? {
        guard let value, let reference else { return nil }
        return value - reference
    }

    private static func sum(_ first: Double?, _ second: Double?) -> Double? {
        guard let first, let second else { return nil }
        return first + second
    }

    private static func format(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.0f", value) : String(format: "%.3g", value)
    }
}
