import CofferSQLite

/// A secondary index inside one transaction, returned by `tx.secondaryIndex(name)` or `tx.ext(name)`.
///
/// Queries see the transaction's snapshot, including its own
/// uncommitted writes.
///
/// Valid only inside the transaction's closure; every method throws `misuse` afterwards.
public final class SecondaryIndexTransaction {
    // Weak: the transaction owns this object, so a strong reference would keep both alive.
    weak var transaction: ReadTransaction?
    let sqlite: SQLiteConnection
    let index: SecondaryIndex
    let sql: SecondaryIndexSQL
    private var visible: Bool?
    /// The name the index is registered under.
    public let registeredName: String

    init(context: ExtensionContext, index: SecondaryIndex, sql: SecondaryIndexSQL) {
        self.transaction = context.transaction
        self.sqlite = context.sqlite
        self.index = index
        self.sql = sql
        self.registeredName = context.registeredName
    }

    /// The version tag the index was registered with.
    public var versionTag: String { index.versionTag }

    /// The transaction, when it is still running.
    /// - Throws: ``DatabaseError`` `.misuse` after the transaction's closure returned.
    func activeTransaction() throws -> ReadTransaction {
        guard let transaction else {
            throw DatabaseError(.misuse, "the secondary index was used after its transaction ended")
        }
        try transaction.checkActive()
        return transaction
    }

    /// Whether this transaction's snapshot holds the secondary index's table (cached).
    ///
    /// Write transactions always do; a reader pinned to a snapshot from before the registration committed does not.
    func isVisible() throws -> Bool {
        if let visible { return visible }
        let transaction = try activeTransaction()
        let result =
            try transaction is ReadWriteTransaction
            || transaction.snapshotHasTable(SecondaryIndex.tableName(registeredName: registeredName))
        visible = result
        return result
    }

    /// The transaction for a query, once the secondary index is known to exist in its snapshot.
    /// - Throws: ``DatabaseError`` `.misuse` after the transaction ended, `.extensionFailure` when
    ///   the registration is not part of the transaction's snapshot.
    func queryTransaction() throws -> ReadTransaction {
        let transaction = try activeTransaction()
        guard try isVisible() else {
            throw DatabaseError(
                .extensionFailure,
                "secondary index \"\(registeredName)\" is not registered in this transaction's snapshot")
        }
        return transaction
    }

    /// The running read-write transaction.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or after it ended.
    func activeWriteTransaction() throws -> ReadWriteTransaction {
        guard let write = try activeTransaction() as? ReadWriteTransaction else {
            throw DatabaseError(.misuse, "the secondary index can only change inside a read-write transaction")
        }
        return write
    }

    /// Runs `sql` (one or more statements without results).
    func execute(_ sql: String) throws {
        try mapSQLite { try sqlite.execute(sql) }
    }

    /// Runs a cached statement binding `values` in order.
    func run(_ sql: String, _ values: [SQLiteValue]) throws {
        try mapSQLite {
            let stmt = try sqlite.cachedStatement(sql)
            defer { stmt.reset() }
            for (offset, value) in values.enumerated() { try stmt.bind(value: value, at: Int32(offset + 1)) }
            try stmt.step()
        }
    }

    /// Re-derives the entry of `row`: the handler's values replace it, or no values remove it.
    func reindex(_ row: ExtensionRow) throws {
        let transaction = try activeTransaction()
        let values = try index.handler.values(for: row, in: transaction, startingWith: [:])
        guard !values.isEmpty else {
            try run(sql.deleteRowid, [.integer(row.rowid)])
            return
        }
        let columns = index.setup.columns
        if values.count > columns.count || values.keys.contains(where: { index.setup.column(named: $0) == nil }) {
            let unknown = values.keys.filter { index.setup.column(named: $0) == nil }.sorted()
            throw DatabaseError(
                .extensionFailure,
                "the handler of secondary index \"\(registeredName)\" set unknown column(s) \(unknown.joined(separator: ", "))",
                collection: row.collectionKey.collection, key: row.collectionKey.key)
        }
        var bindings: [SQLiteValue] = [.integer(row.rowid)]
        for column in columns { bindings.append(values[column.name]?.databaseValue.sqliteValue ?? .null) }
        try run(sql.upsert, bindings)
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension SecondaryIndexTransaction: Sendable {}
