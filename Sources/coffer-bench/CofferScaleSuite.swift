import Coffer
import Foundation

/// W9 on Coffer (Codable rows, one connection with caches off, as in `CofferSuite`): W1, W3 and W4 over
/// `options.scaleCount` records (W2 untimed in between), plus W4 again in a fresh child process for its peak RSS.
struct CofferScaleSuite: BenchmarkSuite {
    let implementation = "Coffer"
    let workloads = [WorkloadInfo("W9", baseline: "W9")]

    /// Runs W9 on a new database in `context.directory`.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when the scaled records are missing or a check differs.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        guard selected.contains("W9") else { return report }
        guard let records = context.scaleRecords else { throw BenchError(.usage, "W9 needs the scaled records") }
        let configuration = context.configuration.scaled(to: records.count)
        let url = context.directory.appendingPathComponent(CofferStore.fileName)
        let collection = Records.collection
        var measured: [(workload: String, ops: Int, seconds: Double)] = []

        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, configuration, run: context.options)
            let connection = try database.newConnection(config: CofferStore.uncached)
            let users = records.users
            let insert = try Stopwatch.measure {
                try connection.readWrite { tx in
                    for user in users { try tx.setObject(user, forKey: user.id, inCollection: collection) }
                }
            }
            measured.append(("W1", users.count, insert.seconds))
            for user in records.updates {
                try connection.readWrite { tx in try tx.setObject(user, forKey: user.id, inCollection: collection) }
            }
            let keys = records.readKeyStrings
            let reads = try Stopwatch.measure { try CofferSuite.pointReads(connection, keys) }
            try ScaleFigures.check(
                "W3 checksum", reads.value.ageSum, expected: records.expected.w3Checksum, implementation: "Coffer")
            measured.append(("W3", keys.count, reads.seconds))
            let scan = try Stopwatch.measure { try CofferSuite.enumerate(connection) }
            try ScaleFigures.check(
                "W4 checksum", scan.value.ageSum, expected: records.expected.w4Checksum, implementation: "Coffer")
            measured.append(("W4", scan.value.count, scan.seconds))
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()

        let child = try EnumerationChild.spawn(path: url.path, implementation: .coffer, configuration: configuration)
        try ScaleFigures.check(
            "child W4 checksum", child.ageSum, expected: records.expected.w4Checksum, implementation: "Coffer")
        report.results = measured.map { item in
            ScaleFigures.result(
                item.workload, ops: item.ops, seconds: item.seconds, implementation: implementation, context: context,
                extra: item.workload == "W4"
                    ? ScaleFigures.childFields(child) + [
                        (name: "child_within_200mb", value: child.peakKiB <= 200 * 1024 ? "yes" : "no")
                    ] : [])
        }
        return report
    }
}
