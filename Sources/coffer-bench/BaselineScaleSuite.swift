import Foundation

/// W9 on the C baseline: W1, W3 and W4 over `options.scaleCount` records (W2 untimed in between), plus W4 again
/// in a fresh child process for its peak RSS.
struct BaselineScaleSuite: BenchmarkSuite {
    let implementation = "C"
    let isBaseline = true
    let workloads = [WorkloadInfo("W9")]

    /// Runs W9 on a new database in `context.directory`.
    /// - Throws: `BenchError` when SQLite fails, the scaled records are missing or a check differs.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        guard selected.contains("W9") else { return report }
        guard let records = context.scaleRecords else { throw BenchError(.usage, "W9 needs the scaled records") }
        let configuration = context.configuration.scaled(to: records.count)
        let path = context.directory.appendingPathComponent("baseline-w9.sqlite").path
        let collection = Records.collection
        var measured: [(workload: String, ops: Int, seconds: Double)] = []
        do {
            let database = try BaselineDatabase(
                path: path, key: context.sqlcipherKey, configuration: configuration, options: context.options)
            try database.createSchema()
            let insert = try Stopwatch.measure {
                try database.insertAll(keys: records.keys, values: records.values, collection: collection)
            }
            measured.append(("W1", records.count, insert.seconds))
            try database.upsertEach(keys: records.updateKeys, values: records.updateValues, collection: collection)
            let reads = try Stopwatch.measure { try database.readEach(keys: records.readKeys, collection: collection) }
            try ScaleFigures.check(
                "W3 checksum", reads.value.ageSum, expected: records.expected.w3Checksum, implementation: "C")
            measured.append(("W3", records.readKeys.count, reads.seconds))
            let scan = try Stopwatch.measure { try database.enumerate(collection: collection) }
            try ScaleFigures.check(
                "W4 checksum", scan.value.ageSum, expected: records.expected.w4Checksum, implementation: "C")
            measured.append(("W4", scan.value.count, scan.seconds))
        }
        let child = try EnumerationChild.spawn(path: path, implementation: .c, configuration: configuration)
        try ScaleFigures.check("child W4 count", child.count, expected: records.expected.w4Count, implementation: "C")
        report.notes = [
            (key: "w9_n", value: String(records.count)),
            (key: "w9_cache_kib", value: String(configuration.effectiveCacheKiB)),
        ]
        report.results = measured.map { item in
            ScaleFigures.result(
                item.workload, ops: item.ops, seconds: item.seconds, implementation: implementation, context: context,
                extra: item.workload == "W4" ? ScaleFigures.childFields(child) : [])
        }
        return report
    }
}
