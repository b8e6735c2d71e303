/// One measured figure: a workload, how many operations it did and how long it took.
struct WorkloadResult: Sendable {
    /// The workload id (`W1`, `W3r`, `JSONENC`, …).
    let id: String
    /// The number of operations the timed region did.
    let ops: Int
    /// The elapsed time in seconds (the median for workloads measured several times).
    let seconds: Double
    /// The C baseline workload whose time this figure is divided by for `ratio_vs_c`, if any.
    let baselineID: String?
    /// Extra `name=value` fields printed after the standard ones, in this order.
    var extra: [(name: String, value: String)]

    /// Creates a figure of `ops` operations in `seconds`.
    init(
        id: String, ops: Int, seconds: Double, baselineID: String? = nil,
        extra: [(name: String, value: String)] = []
    ) {
        self.id = id
        self.ops = ops
        self.seconds = seconds
        self.baselineID = baselineID
        self.extra = extra
    }

    /// Operations per second; 0 when nothing was timed.
    var opsPerSecond: Double { seconds > 0 ? Double(ops) / seconds : 0 }
}
