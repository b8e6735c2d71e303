import Coffer

/// A ``RowCounter``'s part of one transaction: its write hooks, and the counter's query API
/// (`tx.extension("counter", as: RowCounterTransaction.self)`).
///
/// Hooks only buffer count changes; ``flushPendingChanges()`` writes them to the table before
/// the commit, and ``changesForCommit()`` hands what was written to the other connections.
final class RowCounterTransaction: ExtensionTransaction {
    typealias Changes = RowCounterChanges

    private let context: ExtensionContext
    private let state: RowCounterConnectionState
    /// Count changes the hooks made that the table does not hold yet.
    private var buffered: [String: Int] = [:]
    /// Count changes this transaction wrote to the table: the table holds committed + written.
    private var written: [String: Int] = [:]

    init(context: ExtensionContext, state: RowCounterConnectionState) {
        self.context = context
        self.state = state
    }

    // MARK: Queries

    /// The collections this counter counts.
    var allowedCollections: AllowList<String> { state.counter.allowedCollections }

    /// What this connection's state did so far (for tests).
    var statistics: RowCounterConnectionState.Statistics { state.statistics }

    /// The number of rows in `collection` as this transaction sees them (0 for a collection not counted).
    /// - Throws: ``DatabaseError`` `.extensionFailure` in a read pinned before the counter was
    ///   registered, or from reading the table.
    func count(inCollection collection: String) throws -> Int {
        guard allowedCollections.isAllowed(collection) else { return 0 }
        return try committedCount(collection) + (written[collection] ?? 0) + (buffered[collection] ?? 0)
    }

    /// The number of rows of every counted collection that has any.
    /// - Throws: as ``count(inCollection:)``.
    func counts() throws -> [String: Int] {
        var counts = try committedCounts()
        for (collection, delta) in written { counts[collection, default: 0] += delta }
        for (collection, delta) in buffered { counts[collection, default: 0] += delta }
        return counts.filter { $0.value > 0 }
    }

    // MARK: Tables

    func createTables() throws {
        try context.tables.execute(
            "CREATE TABLE IF NOT EXISTS \(quotedTable) (\"collection\" TEXT PRIMARY KEY, \"count\" INTEGER NOT NULL)")
    }

    func populate() throws {
        var counts: [String: Int] = [:]
        try context.enumerateRows(in: allowedCollections, readingObject: false, readingMetadata: false) { row in
            try state.counter.populateCheck?(row.collectionKey)
            counts[row.collection, default: 0] += 1
        }
        try context.tables.run("DELETE FROM \(quotedTable)")
        for (collection, count) in counts.sorted(by: { $0.key < $1.key }) {
            try store(count, for: collection)
        }
    }

    // MARK: Hooks

    func didInsert(_ row: ExtensionRow) throws {
        note(1, in: row.collection)
    }

    func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        note(-1, in: row.collection)
    }

    func willRemoveAll(inCollection collection: String) throws {
        guard allowedCollections.isAllowed(collection) else { return }
        note(-(try count(inCollection: collection)), in: collection)
    }

    func willRemoveAllCollections() throws {
        for (collection, count) in try counts() { note(-count, in: collection) }
    }

    // MARK: Commit

    var hasPendingChanges: Bool { !buffered.isEmpty }

    func flushPendingChanges() throws {
        let work = buffered
        buffered = [:]
        for (collection, delta) in work.sorted(by: { $0.key < $1.key }) {
            let current = try committedCount(collection) + (written[collection] ?? 0)
            try store(current + delta, for: collection)
            written[collection, default: 0] += delta
        }
    }

    func changesForCommit() -> RowCounterChanges? {
        let deltas = written.filter { $0.value != 0 }
        return deltas.isEmpty ? nil : RowCounterChanges(deltas: deltas)
    }

    func didCommit() {
        // This connection's own commit reaches its state here rather than through noteCommitted.
        state.apply(written.filter { $0.value != 0 })
        written = [:]
        buffered = [:]
    }

    func didRollback() {
        written = [:]
        buffered = [:]
    }

    // MARK: Internals

    private var quotedTable: String { ExtensionTables.quote(state.table) }

    /// Buffers a change of `collection`'s count; a net change of zero leaves nothing to write.
    private func note(_ delta: Int, in collection: String) {
        guard allowedCollections.isAllowed(collection), delta != 0 else { return }
        let total = (buffered[collection] ?? 0) + delta
        buffered[collection] = total == 0 ? nil : total
    }

    /// Writes `count` as the table's count for `collection` (an empty collection has no row).
    private func store(_ count: Int, for collection: String) throws {
        if count == 0 {
            try context.tables.run("DELETE FROM \(quotedTable) WHERE \"collection\" = ?", [.text(collection)])
        } else {
            try context.tables.run(
                "INSERT OR REPLACE INTO \(quotedTable) (\"collection\", \"count\") VALUES (?, ?)",
                [.text(collection), .integer(Int64(count))])
        }
    }

    /// The committed count of `collection` (as of the transaction's start), from the cache or the table.
    private func committedCount(_ collection: String) throws -> Int {
        if let cached = state.cache[collection] { return cached }
        if state.cacheIsComplete { return 0 }
        try checkTableInSnapshot()
        let stored = try context.tables.scalar(
            "SELECT \"count\" FROM \(quotedTable) WHERE \"collection\" = ?", [.text(collection)])
        state.statistics.tableReads += 1
        // The table also holds what this transaction flushed already; the cache keeps committed counts only.
        let committed = Int(stored?.int64Value ?? 0) - (written[collection] ?? 0)
        state.remember(committed, for: collection)
        return committed
    }

    /// Every committed count, from the cache when it is complete, otherwise from the table.
    private func committedCounts() throws -> [String: Int] {
        if state.cacheIsComplete { return state.cache }
        try checkTableInSnapshot()
        var committed: [String: Int] = [:]
        try context.tables.query("SELECT \"collection\", \"count\" FROM \(quotedTable)") { row, _ in
            committed[row.text(at: 0)] = Int(row.int64(at: 1))
        }
        state.statistics.tableReads += 1
        for (collection, delta) in written { committed[collection, default: 0] -= delta }
        state.rememberAll(committed)
        return committed
    }

    /// A read pinned before the registration committed lists the counter but has no table yet.
    private func checkTableInSnapshot() throws {
        guard try context.isRegisteredInSnapshot() else {
            throw DatabaseError(
                .extensionFailure,
                "row counter \"\(context.registeredName)\" was registered after this transaction's snapshot")
        }
    }
}
