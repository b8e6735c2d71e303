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

/// How often a suite runs.
enum SuiteScope: Sendable {
    /// Under every selected configuration (settings × key kind), in its own database.
    case perConfiguration
    /// Once per run, independent of the SQLCipher settings (codec-only workloads).
    case once
}

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
