import Coffer
import Foundation

/// Coffer's figures for the workloads of BENCHMARKS.md with Codable `User` rows (JSON, sorted keys): W1–W6, W10
/// and W11, each compared with the C baseline's workload of the same meaning.
///
/// As on the C side, ONE connection writes W1 and W2 and then reads W3 and W4 (its SQLite page cache is as warm
/// as the C handle's); its object and metadata caches are off, so every W3/W4 read goes to SQLite and is decoded.
/// W6 turns the object cache on (unlimited) on that connection after one warm-up pass. W10 runs on the same file
/// with one connection per thread; its writer rewrites the W2 records with the W2 bytes, so the content checks
/// still describe the W1+W2 state.
struct CofferSuite: BenchmarkSuite {
    /// How many times W5 opens the database; the median is reported (as on the C side).
    static let openRepetitions = BaselineSuite.openRepetitions

    let implementation = "Coffer"
    let workloads = [
        WorkloadInfo("W1", baseline: "W1"), WorkloadInfo("W2", baseline: "W2"), WorkloadInfo("W3", baseline: "W3"),
        WorkloadInfo("W4", baseline: "W4"), WorkloadInfo("W6"), WorkloadInfo("W10", baseline: "W10"),
        WorkloadInfo("W5", baseline: "W5"), WorkloadInfo("W11", baseline: "W5"),
    ]

    /// Runs the selected workloads in order on a new database in `context.directory`, then hashes the stored values.
    /// - Throws: `DatabaseError` from Coffer, or `BenchError` when a read finds fewer records than it should.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        let url = context.directory.appendingPathComponent(CofferStore.fileName)
        var report = SuiteReport()

        // Every reference to the database and its connections lives in this function only, so W5 starts closed.
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            let connection = try database.newConnection(config: CofferStore.uncached)
            report.notes = try CofferStore.effectiveSettings(database, connection) + Self.methodNotes
            let handles = context.options.collectionHandles
            report.notes.append((key: "api", value: handles ? "CollectionHandle<User>" : "collection-names"))
            try Self.runWrites(
                connection, selected: selected, records: context.records, handles: handles, into: &report)
            try Self.runReads(connection, selected: selected, records: context.records, handles: handles, into: &report)
            if selected.contains("W10") {
                report.results += try measureConcurrency(database, context: context)
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()

        if selected.contains("W5") {
            report.results.append(try measureOpens(url, context: context))
        }
        if selected.contains("W11") {
            let opens = try measureKeyKinds(url, context: context)
            report.results += opens.results
            report.notes += opens.notes
        }
        let content = try Self.contentHash(url, context.configuration, codable: true, run: context.options)
        report.checks.contentFNV1a64 = content.hex
        report.checks.contentCount = content.count
        return report
    }

    /// How the workloads use Coffer, printed with the settings so the comparison can be judged.
    static let methodNotes: [(key: String, value: String)] = [
        (key: "w1_to_w4", value: "one-connection-writes-and-reads(as-C)"),
        (key: "object_cache", value: "off(W1-W5,W10,W11)"),
        (key: "metadata_cache", value: "off"),
        (key: "w6_object_cache", value: "on,unlimited,after-1-warm-up-pass"),
        (key: "codec", value: "registerCodable(User)=JSONEncoder(.sortedKeys)"),
        (key: "w8", value: "Preferences-vs-UserDefaults(10000-keys,same-process,see-W8-lines)"),
    ]

    /// Opens the closed database untimed, hashes its content in key order and closes it again.
    /// - Throws: `DatabaseError` from Coffer.
    static func contentHash(
        _ url: URL, _ configuration: BenchConfiguration, codable: Bool, run: RunOptions
    ) throws -> (hex: String, count: Int) {
        var content = (hex: "", count: 0)
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, configuration, codable: codable, run: run)
            content = try CofferStore.contentHash(try database.newConnection(config: CofferStore.uncached))
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        return content
    }
}
