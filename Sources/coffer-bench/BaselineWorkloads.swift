import Foundation

/// The C baseline suite: W1–W5 of BENCHMARKS.md on the SQLCipher C API, timed by the harness's `Stopwatch`.
///
/// "Decoding" on the C side is reading the value bytes and parsing the `"age"` field by hand (the checksum);
/// the cost of Foundation's JSON coding alone is measured by `JSONCodingSuite`.
struct BaselineSuite: BenchmarkSuite {
    /// How many times W5 opens the database; the median is reported.
    static let openRepetitions = 5

    let implementation = "C"
    let isBaseline = true
    let workloads = ["W1", "W2", "W3", "W4", "W10", "W10f", "W5"].map { WorkloadInfo($0) }

    /// Runs W1–W4, W10, W10f and W5 in order on a new database in `context.directory`, then hashes the stored values.
    /// - Throws: `BenchError` when SQLite fails or a read finds fewer records than it should.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        let path = context.directory.appendingPathComponent("baseline.sqlite").path
        var report = SuiteReport()
        do {
            // The connection lives in this scope only: W5 starts with every connection closed.
            let database = try open(path, context)
            try database.createSchema()
            report.notes = try effectiveSettings(of: database)
            try runWritesAndReads(on: database, selected: selected, records: context.records, into: &report)
            if selected.contains("W10") {
                report.results += try measureConcurrency(path: path, context: context)
            }
            if selected.contains("W10f") {
                report.results += try measureConcurrency(path: path, context: context, fixedRate: true)
            }
        }
        if selected.contains("W5") {
            try measureOpens(path, context, into: &report)
        }
        let content = try open(path, context).contentHash(collection: Records.collection)
        report.checks.contentFNV1a64 = FNV1a64.hexString(content.hash)
        report.checks.contentCount = content.count
        return report
    }

    /// W1–W4; W1 and W2 run untimed when not selected, so the database always reaches the expected state.
    private func runWritesAndReads(
        on database: BaselineDatabase, selected: Set<String>, records: Records, into report: inout SuiteReport
    ) throws {
        let collection = Records.collection
        let insert = try Stopwatch.measure {
            try database.insertAll(keys: records.keys, values: records.values, collection: collection)
        }
        if selected.contains("W1") {
            report.results.append(.init(id: "W1", ops: records.count, seconds: insert.seconds))
        }

        let upsert = try Stopwatch.measure {
            try database.upsertEach(keys: records.updateKeys, values: records.updateValues, collection: collection)
        }
        if selected.contains("W2") {
            report.results.append(.init(id: "W2", ops: records.updateKeys.count, seconds: upsert.seconds))
        }

        if selected.contains("W3") {
            let reads = try Stopwatch.measure { try database.readEach(keys: records.readKeys, collection: collection) }
            guard reads.value.found == records.readKeys.count else {
                throw BenchError(.checkMismatch, "C:W3 found \(reads.value.found) of \(records.readKeys.count) keys")
            }
            report.results.append(.init(id: "W3", ops: records.readKeys.count, seconds: reads.seconds))
            report.checks.w3Checksum = reads.value.ageSum
        }

        if selected.contains("W4") {
            let scan = try Stopwatch.measure { try database.enumerate(collection: collection) }
            report.results.append(.init(id: "W4", ops: scan.value.count, seconds: scan.seconds))
            report.checks.w4Count = scan.value.count
            report.checks.w4Checksum = scan.value.ageSum
        }
    }

    func open(_ path: String, _ context: SuiteContext) throws -> BaselineDatabase {
        try BaselineDatabase(
            path: path, key: context.sqlcipherKey, configuration: context.configuration, options: context.options)
    }

    /// W5: opens the closed database and reads `user-000000`, five times; each close happens after the timer.
    private func measureOpens(_ path: String, _ context: SuiteContext, into report: inout SuiteReport) throws {
        var samples: [Double] = []
        for _ in 0..<Self.openRepetitions {
            let opened = try Stopwatch.measure {
                let database = try open(path, context)
                let age = try database.age(forKey: User.key(index: 0), collection: Records.collection)
                return (database: database, age: age)
            }
            guard opened.value.age == context.records.firstRecordAge else {
                throw BenchError(.checkMismatch, "C:W5 read age \(opened.value.age.map(String.init) ?? "nothing")")
            }
            samples.append(opened.seconds)
        }
        let spread = [(name: "min_s", value: samples.min() ?? 0), (name: "max_s", value: samples.max() ?? 0)]
        report.results.append(
            .init(
                id: "W5", ops: 1, seconds: Stopwatch.median(samples),
                extra: spread.map { (name: $0.name, value: String(format: "%.6f", $0.value)) }))
    }

    /// The settings as the connection reports them, so the report shows what was in effect, not what was asked.
    private func effectiveSettings(of database: BaselineDatabase) throws -> [(key: String, value: String)] {
        let names = [
            "cipher_page_size", "cache_size", "kdf_iter", "cipher_use_hmac", "journal_mode", "synchronous",
            "wal_autocheckpoint", "auto_vacuum",
        ]
        var notes = try names.map { (key: $0, value: try database.pragma($0)) }
        notes.append((key: "open_flags", value: "READWRITE|CREATE|NOMUTEX"))
        notes.append((key: "upsert", value: "UPDATE-then-INSERT"))
        return notes
    }
}
