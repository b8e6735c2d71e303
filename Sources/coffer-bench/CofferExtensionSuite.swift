import Coffer
import Foundation

/// W1 and W3 with one extension registered — a SecondaryIndex of two columns (W1s, W3s) or a
/// FullTextSearch over two text fields (W1f, W3f) — each on a database of its own: what keeping an
/// extension in step costs a bulk insert, and what merely having one registered costs a point read.
///
/// As in `CofferSuite`, one connection with its caches off writes the W1 records in one transaction
/// and then reads the W3 keys; the W2 updates are not written, so the reads see revision 0.
struct CofferExtensionSuite: BenchmarkSuite {
    /// The extension a database of this suite carries, and the ids of its two workloads.
    enum Kind: String, CaseIterable {
        case secondaryIndex = "s"
        case fullTextSearch = "f"

        var insertID: String { "W1" + rawValue }
        var readID: String { "W3" + rawValue }

        /// The extension, over the benchmark collection only.
        func makeExtension() -> any DatabaseExtension {
            switch self {
            case .secondaryIndex:
                SecondaryIndex(
                    setup: SecondaryIndexSetup([("age", .integer), ("score", .real)]),
                    handler: .object(User.self) { row, values in
                        values["age"] = row.object.age
                        values["score"] = row.object.score
                    },
                    allowedCollections: .only([Records.collection]))
            case .fullTextSearch:
                FullTextSearch(
                    columns: ["name", "bio"],
                    handler: .object(User.self) { row, text in
                        text["name"] = row.object.name
                        text["bio"] = row.object.bio
                    },
                    allowedCollections: .only([Records.collection]))
            }
        }

        /// How many rows the extension holds, counted through its own query.
        func entryCount(_ connection: Connection) throws -> Int? {
            try connection.read { tx in
                switch self {
                case .secondaryIndex: try tx.secondaryIndex(rawValue)?.count(matching: .matchingAll)
                // Every record's bio says "encrypted storage".
                case .fullTextSearch: try tx.fullTextSearch(rawValue)?.count(matching: "encrypted")
                }
            }
        }
    }

    let implementation = "CofferExt"
    let workloads = [
        WorkloadInfo("W1s", baseline: "W1"), WorkloadInfo("W3s", baseline: "W3"),
        WorkloadInfo("W1f", baseline: "W1"), WorkloadInfo("W3f", baseline: "W3"),
    ]

    /// Runs each selected extension's W1 and W3 on a new database.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a read misses a key, the W3 ages are not
    ///   revision 0's, or the extension did not index every row.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        report.notes = [
            (
                key: "extensions",
                value: "W1s,W3s=SecondaryIndex(age:integer,score:real) W1f,W3f=FullTextSearch(name,bio)"
            ),
            (key: "w1_then_w3", value: "one-connection,caches-off,no-W2"),
        ]
        for kind in Kind.allCases where selected.contains(kind.insertID) || selected.contains(kind.readID) {
            try run(kind, selected: selected, context: context, into: &report)
        }
        return report
    }

    private func run(_ kind: Kind, selected: Set<String>, context: SuiteContext, into report: inout SuiteReport)
        throws
    {
        let url = context.directory.appendingPathComponent("extension-\(kind.rawValue).sqlite")
        let users = context.records.users
        let keys = context.records.readKeyStrings
        // Every reference to the database lives in this function, so it is released before the next kind.
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            try database.register(kind.makeExtension(), withName: kind.rawValue)
            let connection = try database.newConnection(config: CofferStore.uncached)
            let insert = try Stopwatch.measure {
                try connection.readWrite { tx in
                    for user in users { try tx.setObject(user, forKey: user.id, inCollection: Records.collection) }
                }
            }
            if selected.contains(kind.insertID) {
                report.results.append(
                    .init(id: kind.insertID, ops: users.count, seconds: insert.seconds, baselineID: "W1"))
            }
            if selected.contains(kind.readID) {
                let reads = try Stopwatch.measure { try CofferSuite.pointReads(connection, keys) }
                let expectedSum = context.records.readIndexes.reduce(0) { $0 + User.age(index: $1, rev: 0) }
                guard reads.value.found == keys.count, reads.value.ageSum == expectedSum else {
                    throw BenchError(
                        .checkMismatch,
                        "CofferExt:\(kind.readID) read \(reads.value.found) of \(keys.count), age sum \(reads.value.ageSum)"
                    )
                }
                report.results.append(.init(id: kind.readID, ops: keys.count, seconds: reads.seconds, baselineID: "W3"))
            }
            let entries = try kind.entryCount(connection)
            guard entries == users.count else {
                throw BenchError(
                    .checkMismatch, "CofferExt: the \(kind) extension holds \(entries ?? -1) of \(users.count) rows")
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
    }
}
