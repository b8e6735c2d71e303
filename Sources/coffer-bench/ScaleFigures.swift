import Foundation

/// The figure lines of W9, shared by its C and Coffer suites: W1, W3 and W4 at the scaled N, each with its per-op
/// cost and, when the same workload ran at the run's N in this configuration, the ratio of the two per-op costs.
enum ScaleFigures {
    /// The W9 figure of workload `workload` (`W1`, `W3`, `W4`) measured over `ops` operations in `seconds`.
    static func result(
        _ workload: String, ops: Int, seconds: Double, implementation: String, context: SuiteContext,
        extra: [(name: String, value: String)] = []
    ) -> WorkloadResult {
        let id = "W9-\(workload)"
        var fields: [(name: String, value: String)] = [
            (name: "n", value: String(ops)),
            (name: "us_per_op", value: String(format: "%.3f", ops > 0 ? seconds * 1e6 / Double(ops) : 0)),
        ]
        if let small = context.earlier["\(implementation):\(workload)"], small.ops > 0, ops > 0 {
            let ratio = (seconds / Double(ops)) / (small.seconds / Double(small.ops))
            fields.append((name: "per_op_vs_n\(small.ops)", value: String(format: "%.2f", ratio)))
        }
        return WorkloadResult(id: id, ops: ops, seconds: seconds, baselineID: id, extra: fields + extra)
    }

    /// The child-process fields of the W9 W4 line.
    static func childFields(_ child: EnumerationChild.Outcome) -> [(name: String, value: String)] {
        [
            (name: "child_peak_kb", value: String(child.peakKiB)),
            (name: "child_s", value: String(format: "%.6f", child.seconds)),
        ]
    }

    /// Checks the figures a W9 suite read against the scaled records' expected ones.
    /// - Throws: `BenchError` with code `.checkMismatch` naming the first difference.
    static func check(
        _ name: String, _ value: Int, expected: Int?, implementation: String
    ) throws {
        guard let expected, value != expected else { return }
        throw BenchError(.checkMismatch, "\(implementation):W9 \(name)=\(value), expected \(expected)")
    }
}
