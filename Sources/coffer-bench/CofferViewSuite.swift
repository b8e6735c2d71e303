import Coffer
import Foundation

/// W1 and W2 with an AutoView registered, and the view's own operations (V1–V4).
///
/// Every row carries a ``ViewStamp`` as metadata. The view groups the W1 records by the stamp's
/// group (ten groups of N / 10) and sorts each group by the stamp's time (W1v, W1vm, W1va, W1vc)
/// or by the record's `score` (W1vo). Each bulk workload inserts W1's records in W1's order (key
/// order) in one transaction on a database of its own; in W1v the timestamps are drawn from the
/// record index, so each insert lands anywhere in its group, and in W1va they increase with it
/// (every insert appends). W1vm is W1v with the view kept in memory (`isPersistent: false`). W1m
/// writes the same rows and metadata without a view, so W1v / W1m is the view's share alone and
/// W1m / W1 the metadata's. W2v, W2vm and W2m follow W1v, W1vm and W1m on the same connection as
/// Coffer's W2 follows its W1: W2's 2,000 single-row transactions, each rewriting the record with
/// its (unchanged) stamp. V1–V3 are in `CofferViewSuite+Scale.swift`, V4 in
/// `CofferViewSuite+Changes.swift`.
struct CofferViewSuite: BenchmarkSuite {
    /// The name every view of this suite is registered under.
    static let viewName = "view"

    /// How a bulk workload's view sorts, if it has one.
    enum Sorting {
        /// By the metadata's timestamp.
        case stamp
        /// By the object's `score`; each comparison needs the neighbour's decoded `User`.
        case score
    }

    /// One bulk insert: its id, the id that selects it, its view and its connection's caches.
    struct Bulk {
        let id: String
        let selectedBy: String
        let sorting: Sorting?
        let appending: Bool
        /// Whether the view keeps its pages in the file (false: in memory).
        var persistent = true
        let config: ConnectionConfig
        let note: String
    }

    /// The bulk inserts, in run order.
    static let bulks: [Bulk] = [
        Bulk(
            id: "W1m", selectedBy: "W1m", sorting: nil, appending: false, config: CofferStore.uncached,
            note: "metadata,no-view,caches-off"),
        Bulk(
            id: "W1v", selectedBy: "W1v", sorting: .stamp, appending: false, config: CofferStore.uncached,
            note: "view-by-metadata-time,times-random,caches-off"),
        Bulk(
            id: "W1vm", selectedBy: "W1vm", sorting: .stamp, appending: false, persistent: false,
            config: CofferStore.uncached, note: "view-in-memory,by-metadata-time,times-random,caches-off"),
        Bulk(
            id: "W1vc", selectedBy: "W1vc", sorting: .stamp, appending: false,
            config: ConnectionConfig(
                objectCacheEnabled: false, objectCacheLimit: 0, metadataCacheEnabled: true, metadataCacheLimit: 0),
            note: "view-by-metadata-time,times-random,metadata-cache-unlimited"),
        Bulk(
            id: "W1va", selectedBy: "W1va", sorting: .stamp, appending: true, config: CofferStore.uncached,
            note: "view-by-metadata-time,times-increasing(appends),caches-off"),
        Bulk(
            id: "W1vo-off", selectedBy: "W1vo", sorting: .score, appending: false, config: CofferStore.uncached,
            note: "view-by-object-score,caches-off"),
        Bulk(
            id: "W1vo-on", selectedBy: "W1vo", sorting: .score, appending: false,
            config: ConnectionConfig(
                objectCacheEnabled: true, objectCacheLimit: 250, metadataCacheEnabled: false, metadataCacheLimit: 0),
            note: "view-by-object-score,object-cache-default-limit(250)"),
        Bulk(
            id: "W1vo-all", selectedBy: "W1vo", sorting: .score, appending: false,
            config: ConnectionConfig(
                objectCacheEnabled: true, objectCacheLimit: 0, metadataCacheEnabled: false, metadataCacheLimit: 0),
            note: "view-by-object-score,object-cache-unlimited"),
    ]

    let implementation = "CofferView"
    let workloads = [
        WorkloadInfo("W1m", baseline: "W1"), WorkloadInfo("W2m", baseline: "W2"),
        WorkloadInfo("W1v", baseline: "W1"), WorkloadInfo("W2v", baseline: "W2"), WorkloadInfo(Self.changesID),
        WorkloadInfo("W1vm", baseline: "W1"), WorkloadInfo("W2vm", baseline: "W2"),
        WorkloadInfo("W1vc", baseline: "W1"),
        WorkloadInfo("W1va", baseline: "W1"),
        WorkloadInfo("W1vo", baseline: "W1"), WorkloadInfo(Self.bigInsertID), WorkloadInfo(Self.smallInsertID),
        WorkloadInfo(Self.lookupID),
    ]

    /// The workloads that run on a bulk workload's database after it, the single-row commits first.
    static let followers = ["W1v": ["W2v", changesID], "W1vm": ["W2vm"], "W1m": ["W2m"]]

    /// The view of a bulk workload.
    static func makeView(_ sorting: Sorting, persistent: Bool = true) -> AutoView {
        AutoView(
            grouping: .metadata(ViewStamp.self) { row, group in group = ViewStamp.groupNames[row.metadata.group] },
            sorting: sorting == .stamp
                ? .metadata(ViewStamp.self) { _, left, right in
                    ViewStamp.compare(left.metadata.time, right.metadata.time)
                }
                : .object(User.self) { _, left, right in ViewStamp.compare(left.object.score, right.object.score) },
            allowedCollections: .only([Records.collection]), isPersistent: persistent)
    }

    /// Runs the selected workloads, each bulk insert on a database of its own.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a view holds other rows or another order than
    ///   the records say.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        report.notes = [
            (
                key: "view",
                value: "AutoView(persistent;W1vm-in-memory),group=stamp.group(10-groups),metadata=16-byte-stamp"
            ),
            (key: "w2v_w2vm_w2m", value: "after-W1v/W1vm/W1m-on-the-same-connection,W2-updates-with-unchanged-stamps"),
        ]
        if selected.contains("W2v") || selected.contains(Self.changesID) {
            report.notes.append((key: "w1v_runs_for", value: "W2v,\(Self.changesID)(untimed-when-not-selected)"))
        }
        for bulk in Self.bulks {
            let follows = Self.followers[bulk.id] ?? []
            guard selected.contains(bulk.selectedBy) || follows.contains(where: selected.contains) else { continue }
            report.notes.append((key: bulk.id.lowercased(), value: bulk.note))
            try run(bulk, selected: selected, context: context, into: &report)
        }
        if selected.contains(Self.bigInsertID) || selected.contains(Self.smallInsertID)
            || selected.contains(Self.lookupID)
        {
            report.notes.append((key: "v1_to_v3", value: Self.scaleNote(context.options)))
            report.results += try runScale(selected: selected, context: context)
        }
        return report
    }

    private func run(_ bulk: Bulk, selected: Set<String>, context: SuiteContext, into report: inout SuiteReport)
        throws
    {
        let url = context.directory.appendingPathComponent("view-\(bulk.id).sqlite")
        let users = context.records.users
        let stamps = (0..<users.count).map { ViewStamp.of(index: $0, appending: bulk.appending) }
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            database.registerMetadataSerializer(ViewStamp.chain, forCollection: Records.collection)
            if let sorting = bulk.sorting {
                try database.register(Self.makeView(sorting, persistent: bulk.persistent), withName: Self.viewName)
            }
            let connection = try database.newConnection(config: bulk.config)
            let insert = try Stopwatch.measure {
                try connection.readWrite { tx in
                    for (user, stamp) in zip(users, stamps) {
                        try tx.setObject(user, forKey: user.id, inCollection: Records.collection, withMetadata: stamp)
                    }
                }
            }
            if selected.contains(bulk.selectedBy) {
                report.results.append(
                    Self.result(bulk.id, ops: users.count, seconds: insert.seconds, baseline: "W1", context))
            }
            if let sorting = bulk.sorting { try Self.check(connection, sorting, stamps, users.count) }
            let updateID = Self.followers[bulk.id]?.first
            // V4 measures W1v's view in the state W2v leaves it in.
            if let updateID, selected.contains(updateID) || (updateID == "W2v" && selected.contains(Self.changesID)) {
                let updates = context.records.updates
                let rewrite = try Stopwatch.measure {
                    for (user, index) in zip(updates, context.records.updateIndexes) {
                        try connection.readWrite { tx in
                            try tx.setObject(
                                user, forKey: user.id, inCollection: Records.collection, withMetadata: stamps[index])
                        }
                    }
                }
                if selected.contains(updateID) {
                    report.results.append(
                        Self.result(updateID, ops: updates.count, seconds: rewrite.seconds, baseline: "W2", context))
                }
            }
            if bulk.id == "W1v", selected.contains(Self.changesID) {
                report.notes.append((key: Self.changesID.lowercased(), value: Self.changesNote))
                report.results.append(try Self.measureChanges(database, writer: connection, first: users.count))
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
    }

    /// Checks that the view holds every record and that group `g0` is in the sorting's order.
    private static func check(_ connection: Connection, _ sorting: Sorting, _ stamps: [ViewStamp], _ count: Int)
        throws
    {
        let (held, keys) = try connection.read { tx in
            let view = try tx.extension(viewName, as: AutoViewTransaction.self)
            var keys: [String] = []
            try view.enumerateKeys(inGroup: ViewStamp.groupNames[0]) { row, _, _ in keys.append(row.key) }
            return (try view.numberOfItemsInAllGroups(), keys)
        }
        // Keys are "user-" and the record index.
        let indexes = keys.compactMap { Int($0.dropFirst(5)) }
        let values = indexes.map { sorting == .stamp ? stamps[$0].time : User(index: $0, rev: 0).score }
        guard held == count, indexes.count == (count + ViewStamp.groupCount - 1) / ViewStamp.groupCount,
            zip(values, values.dropFirst()).allSatisfy({ $0 <= $1 })
        else {
            throw BenchError(
                .checkMismatch, "CofferView: the view holds \(held) of \(count) rows, or group g0 is out of order")
        }
    }

    /// A figure compared with C's `baseline` (`ratio_vs_c`) and with Coffer's own (`vs_coffer_<baseline>`).
    static func result(_ id: String, ops: Int, seconds: Double, baseline: String, _ context: SuiteContext)
        -> WorkloadResult
    {
        var result = WorkloadResult(id: id, ops: ops, seconds: seconds, baselineID: baseline)
        if let coffer = context.earlier["Coffer:\(baseline)"], coffer.ops > 0, coffer.seconds > 0, ops > 0 {
            let ratio = (seconds / Double(ops)) / (coffer.seconds / Double(coffer.ops))
            result.extra.append((name: "vs_coffer_\(baseline.lowercased())", value: String(format: "%.3f", ratio)))
        }
        return result
    }
}
