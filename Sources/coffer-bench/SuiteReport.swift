/// What one run of a suite measured.
struct SuiteReport: Sendable {
    /// The figures, in the order they were taken.
    var results: [WorkloadResult] = []
    /// The cross-implementation checks this suite took.
    var checks = SanityFigures()
    /// Information lines (settings read back from the store, …), printed as `# <implementation>:<key>=<value>`.
    var notes: [(key: String, value: String)] = []

    /// Creates an empty report.
    init() {}
}
