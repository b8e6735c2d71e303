import Coffer
import Foundation

/// W1 and W3 with one extension registered, each on a database of its own, and Q1t.
///
/// The extension is a SecondaryIndex of two columns (W1s, W3s), a FullTextSearch over two text
/// fields (W1f, W3f) or a 2-D RTreeIndex (W1t, W3t): what keeping an extension in step costs a
/// bulk insert, and what merely having one registered costs a point read. Q1t, bounding-box
/// queries on an R*Tree index of `options.scaleCount` rows, is in `CofferExtensionSuite+Query.swift`.
///
/// As in `CofferSuite`, one connection with its caches off writes the W1 records in one transaction
/// and then reads the W3 keys; the W2 updates are not written, so the reads see revision 0. Each
/// figure also gives its time per operation over Coffer's own W1 or W3 of the same configuration
/// (`vs_coffer_w1`, `vs_coffer_w3`), when that ran earlier in the run.
struct CofferExtensionSuite: BenchmarkSuite {
    /// The extension a database of this suite carries, and the ids of its two workloads.
    enum Kind: String, CaseIterable {
        case secondaryIndex = "s"
        case fullTextSearch = "f"
        case rTreeIndex = "t"

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
            case .rTreeIndex:
                RTreeIndex(
                    setup: RTreeIndexSetup(columns: ["minAge", "maxAge", "minScore", "maxScore"]),
                    handler: .object(User.self) { row, box in
                        let age = Double(row.object.age)
                        box["minAge"] = age
                        box["maxAge"] = age + 1
                        box["minScore"] = row.object.score
                        box["maxScore"] = row.object.score + 0.5
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
                case .rTreeIndex: try tx.rtreeIndex(rawValue)?.count(matching: .matchingAll)
                }
            }
        }
    }

    let implementation = "CofferExt"
    let workloads = [
        WorkloadInfo("W1s", baseline: "W1"), WorkloadInfo("W3s", baseline: "W3"),
        WorkloadInfo("W1f", baseline: "W1"), WorkloadInfo("W3f", baseline: "W3"),
        WorkloadInfo("W1t", baseline: "W1"), WorkloadInfo("W3t", baseline: "W3"),
        WorkloadInfo(Self.queryID),
    ]

    /// Runs each selected extension's W1 and W3 on a new database.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a read misses a key, the W3 ages are not
    ///   revision 0's, or the extension did not index every row.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        report.notes = [
            (
                key: "extensions",
                value: "W1s,W3s=SecondaryIndex(age:integer,score:real) W1f,W3f=FullTextSearch(name,bio) "
                    + "W1t,W3t=RTreeIndex([age,age+1]x[score,score+0.5])"
            ),
            (key: "w1_then_w3", value: "one-connection,caches-off,no-W2"),
        ]
        for kind in Kind.allCases where selected.contains(kind.insertID) || selected.contains(kind.readID) {
            try run(kind, selected: selected, context: context, into: &report)
        }
        if selected.contains(Self.queryID) {
            report.notes.append((key: "q1t", value: Self.queryNote))
            report.results.append(try runQuery(context: context))
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
                    Self.result(kind.insertID, ops: users.count, seconds: insert.seconds, baseline: "W1", context))
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
                report.results.append(
                    Self.result(kind.readID, ops: keys.count, seconds: reads.seconds, baseline: "W3", context))
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

    /// A figure compared with C's `baseline` (`ratio_vs_c`) and with Coffer's own (`vs_coffer_<baseline>`).
    private static func result(
        _ id: String, ops: Int, seconds: Double, baseline: String, _ context: SuiteContext
    ) -> WorkloadResult {
        var result = WorkloadResult(id: id, ops: ops, seconds: seconds, baselineID: baseline)
        if let coffer = context.earlier["Coffer:\(baseline)"], coffer.ops > 0, coffer.seconds > 0, ops > 0 {
            let ratio = (seconds / Double(ops)) / (coffer.seconds / Double(coffer.ops))
            result.extra.append((name: "vs_coffer_\(baseline.lowercased())", value: String(format: "%.3f", ratio)))
        }
        return result
    }
}
