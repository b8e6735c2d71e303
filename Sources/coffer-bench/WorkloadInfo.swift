/// A workload a suite can run, and the baseline workload it is compared with.
struct WorkloadInfo: Sendable {
    /// The workload id of BENCHMARKS.md (`W1`, `W1r`, `JSONENC`, …).
    let id: String
    /// The C baseline workload this one is compared with; selecting this workload also runs that one.
    let baselineID: String?

    /// Describes workload `id`, compared with baseline workload `baselineID` when there is one.
    init(_ id: String, baseline baselineID: String? = nil) {
        self.id = id
        self.baselineID = baselineID
    }
}
