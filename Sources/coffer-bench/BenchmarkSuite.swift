/// One implementation of a group of workloads that run in order against one fresh database and share its state.
///
/// The harness creates an empty directory for each run of a suite, calls `run(selected:context:)`, prints the
/// returned figures (with `ratio_vs_c=` for those naming a baseline workload) and compares the returned checks
/// with `context.records.expected`. A suite that writes must leave the database in the state the checks describe —
/// the W1 records with the W2 records written over them — so it performs W1 and W2 untimed when they are not
/// selected. New suites are listed in `SuiteRegistry`.
protocol BenchmarkSuite {
    /// The implementation name that prefixes this suite's workload ids in reports (`C` gives `C:W1`); an empty name
    /// prints bare ids. Distinct suites use distinct names so their check lines can be told apart.
    var implementation: String { get }

    /// The workloads this suite can run, in the order it runs them.
    var workloads: [WorkloadInfo] { get }

    /// Whether the suite runs once per configuration or once per run.
    var scope: SuiteScope { get }

    /// Whether this suite is the C baseline the other suites' ratios refer to.
    var isBaseline: Bool { get }

    /// Runs the `selected` workloads among `workloads`, in order, and returns their figures and checks.
    /// - Throws: `BenchError` (or the store's own error) when a workload fails; the harness stops the run.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport
}

extension BenchmarkSuite {
    /// Suites run under every configuration unless they say otherwise.
    var scope: SuiteScope { .perConfiguration }

    /// Only the C baseline says it is one.
    var isBaseline: Bool { false }
}
