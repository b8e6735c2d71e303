import Foundation

/// A cloud core's part of one transaction (YapDatabase's `YapDatabaseCloudCoreTransaction`): the
/// API to queue, change, complete and find operations, tags and attachments.
///
/// ```swift
/// try connection.readWrite { tx in
///     let cloud = try tx.cloudCore("cloud")
///     let upload = try cloud.add(CloudOperation(UploadNote(noteKey: "n1")))
///     try cloud.add(CloudOperation(UploadIndex(), dependencies: [upload.uuid]))
/// }
/// ```
///
/// Valid only inside its transaction; reads see the transaction's snapshot plus its own changes.
/// Changes throw ``CloudCoreError`` `.misuse` in a read-only transaction; failures of the storage
/// underneath throw ``DatabaseError``. A change rolls back with its transaction.
public final class CloudCoreTransaction: ExtensionTransaction {
    /// What a commit changed in the queue.
    public typealias Changes = CloudCoreChanges

    let context: ExtensionContext
    let state: CloudCoreConnectionState
    /// Whether this transaction holds the runtime's commit-order gate.
    private var holdsCommitOrder = false
    /// The queue read at registration, handed to the pipelines after the commit.
    private var restored: CloudCoreRestoredQueue?
    /// What this transaction changed in the queue.
    var commit = CloudCoreCommit()
    /// The UUIDs added in this transaction, in order (for ``addedOperations(inPipeline:)``).
    var addedOrder: [UUID] = []
    /// Attachments asked for rows that did not exist yet, made when the row is inserted in this
    /// transaction (dropped with the transaction otherwise).
    var pendingAttachments: [CollectionKey: Set<String>] = [:]

    init(context: ExtensionContext, state: CloudCoreConnectionState) {
        self.context = context
        self.state = state
    }

    deinit {
        // A transaction object always gets `didCommit` or `didRollback`; this only guards the gate
        // against a path that would skip both.
        if holdsCommitOrder { runtime.leaveCommitOrder() }
    }

    var runtime: CloudCoreRuntime { state.cloudCore.runtime }
    var sql: CloudCoreSQL { state.sql }
    var tables: ExtensionTables { context.tables }
    var registeredName: String { context.registeredName }

    /// Checks that the transaction may change the queue and takes the commit-order gate.
    func beginChange() throws {
        try checkWritable()
        try checkRegistered()
        try enterCommitOrder()
    }

    func checkWritable() throws {
        guard context.isReadWrite else {
            throw CloudCoreError(
                .misuse, "cloud core \"\(registeredName)\" can only change inside a read-write transaction")
        }
        _ = try context.writeTransaction()
    }

    func checkRegistered() throws {
        guard try context.isRegisteredInSnapshot() else {
            throw CloudCoreError(
                .misuse, "cloud core \"\(registeredName)\" is not registered in this transaction's snapshot")
        }
    }

    private func enterCommitOrder() throws {
        guard !holdsCommitOrder else { return }
        try runtime.enterCommitOrder(registeredName: registeredName)
        holdsCommitOrder = true
    }

    // MARK: Lifecycle

    /// Creates the tables and reads the queue back for the pipelines.
    public func createTables() throws {
        try runtime.bind(to: context.transaction().connection.database, as: registeredName)
        try tables.execute(sql.createTables)
        try enterCommitOrder()
        var queue = CloudCoreRestoredQueue()
        var graphs: [String: [UInt64: [(uuid: UUID, operation: CloudOperation?)]]] = [:]
        try forEachRow(pipeline: nil) { uuid, row in
            // An operation that cannot be decoded keeps its place: it blocks what must wait for it.
            let operation = try? decode(row, uuid: uuid)
            graphs[row.pipeline, default: [:]][row.graph, default: []].append((uuid, operation))
            queue.lastGraphID = max(queue.lastGraphID, row.graph)
        }
        // Operations of a pipeline not registered now stay in the table, and run once it is.
        for (pipeline, byGraph) in graphs {
            queue.graphs[pipeline] = byGraph.keys.sorted().map { id in
                var graph = CloudCoreGraph(id: id)
                graph.insert(byGraph[id] ?? [])
                return graph
            }
        }
        restored = queue
    }

    /// The queue changes of the commit, by pipeline; nil when the queue did not change.
    public func changesForCommit() -> CloudCoreChanges? {
        var pipelines: [String: CloudCoreQueueChange] = [:]
        for (name, change) in commit.pipelines where !change.isEmpty {
            pipelines[name] = CloudCoreQueueChange(
                pipeline: name, added: Set(change.added.map(\.uuid) + change.inserted.map(\.uuid)),
                modified: Set(change.modified.keys), removed: Set(change.removed.keys))
        }
        return pipelines.isEmpty ? nil : CloudCoreChanges(pipelines: pipelines)
    }

    /// Hands the commit to the pipelines, in commit order.
    public func didCommit() {
        guard holdsCommitOrder else { return }
        if let restored { runtime.restore(restored) }
        if !commit.isEmpty { runtime.apply(commit) }
        finish()
    }

    /// Forgets the transaction's changes and lets the next transaction change the queue.
    public func didRollback() {
        finish()
    }

    private func finish() {
        restored = nil
        commit = CloudCoreCommit()
        addedOrder = []
        if holdsCommitOrder {
            holdsCommitOrder = false
            runtime.leaveCommitOrder()
        }
    }

    // MARK: Rows inserted and removed

    /// Makes the attachments asked for the row before it existed.
    public func didInsert(_ row: ExtensionRow) throws {
        guard !pendingAttachments.isEmpty, let cloudIDs = pendingAttachments.removeValue(forKey: row.collectionKey)
        else { return }
        for cloudID in cloudIDs.sorted() { try tables.run(sql.insertMapping, [.integer(row.rowid), .text(cloudID)]) }
    }

    /// Removes the tags and attachments of a removed row.
    public func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        let options = state.cloudCore.options
        if options.enablesTags { try tables.run(sql.deleteTagsOfRow, [.integer(rowid)]) }
        if options.enablesAttachments { try tables.run(sql.deleteMappingsOfRow, [.integer(rowid)]) }
    }

    /// Removes the tags and attachments of every row of `collection`.
    public func willRemoveAll(inCollection collection: String) throws {
        for table in rowTables { try tables.run(sql.deleteOfCollection(table), [.text(collection)]) }
    }

    /// Removes every tag and attachment.
    public func willRemoveAllCollections() throws {
        for table in rowTables { try tables.run(sql.deleteAll(table)) }
    }

    private var rowTables: [String] {
        let options = state.cloudCore.options
        return (options.enablesTags ? [sql.tag] : []) + (options.enablesAttachments ? [sql.mapping] : [])
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension CloudCoreTransaction: Sendable {}

extension ReadTransaction {
    /// The transaction object of the ``CloudCore`` registered as `name`.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when no cloud core is registered under `name`.
    public func cloudCore(_ name: String) throws -> CloudCoreTransaction {
        try `extension`(name, as: CloudCoreTransaction.self)
    }
}
