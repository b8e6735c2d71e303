import Coffer
import Foundation

/// W1b–W4b: W1–W4 with the `User` rows in Coffer's binary Codable format
/// (`registerCodable(User.self, forCollection:format: .binary)`) instead of JSON, on a database of their own and
/// otherwise exactly as `CofferSuite` runs them (one connection writes then reads, its caches off).
///
/// The stored bytes are not the canonical JSON, so the content hash is not taken; the W3 and W4 checksums are.
struct CofferBinarySuite: BenchmarkSuite {
    let implementation = "CofferBin"
    let workloads = [
        WorkloadInfo("W1b", baseline: "W1"), WorkloadInfo("W2b", baseline: "W2"), WorkloadInfo("W3b", baseline: "W3"),
        WorkloadInfo("W4b", baseline: "W4"),
    ]

    /// Runs W1b and W2b (untimed when not selected, so the file reaches the W1+W2 state), then W3b and W4b.
    /// - Throws: `DatabaseError` from Coffer, or `BenchError` when a read finds fewer records than it should.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        let url = context.directory.appendingPathComponent(CofferStore.fileName)
        var report = SuiteReport()
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, format: .binary, run: context.options)
            let connection = try database.newConnection(config: CofferStore.uncached)
            let handles = context.options.collectionHandles
            report.notes = [
                (key: "codec", value: "registerCodable(User,format:.binary)"),
                (key: "api", value: handles ? "CollectionHandle<User>" : "collection-names"),
                (key: "w1b_to_w4b", value: "one-connection-writes-and-reads(as-C)"),
                (key: "object_cache", value: "off"),
            ]
            let records = context.records
            try CofferSuite.runWrites(
                connection, selected: selected, records: records, handles: handles, suffix: "b", into: &report)
            try CofferSuite.runReads(
                connection, selected: selected, records: records, handles: handles, suffix: "b", into: &report)
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        return report
    }
}
