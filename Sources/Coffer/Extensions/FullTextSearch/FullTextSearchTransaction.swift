import CofferSQLite

/// A full-text search inside one transaction, returned by `tx.fullTextSearch(name)` or `tx.ext(name)`.
///
/// Searches see the transaction's snapshot, including its own
/// uncommitted writes.
///
/// Valid only inside the transaction's closure; every method throws `misuse` afterwards.
public final class FullTextSearchTransaction {
    // Weak: the transaction owns this object, so a strong reference would keep both alive.
    weak var transaction: ReadTransaction?
    let sqlite: SQLiteConnection
    let search: FullTextSearch
    let sql: FullTextSearchSQL
    private var visible: Bool?
    /// The name the search is registered under.
    public let registeredName: String

    init(context: ExtensionContext, search: FullTextSearch, sql: FullTextSearchSQL) {
        self.transaction = context.transaction
        self.sqlite = context.sqlite
        self.search = search
        self.sql = sql
        self.registeredName = context.registeredName
    }

    /// The version tag the search was registered with.
    public var versionTag: String { search.versionTag }

    /// The transaction, when it is still running.
    /// - Throws: ``DatabaseError`` `.misuse` after the transaction's closure returned.
    func activeTransaction() throws -> ReadTransaction {
        guard let transaction else {
            throw DatabaseError(.misuse, "the full-text search was used after its transaction ended")
        }
        try transaction.checkActive()
        return transaction
    }

    /// Whether this transaction's snapshot holds the full-text search's table (cached).
    ///
    /// Write transactions always do; a reader pinned to a snapshot from before the registration committed does not.
    func isVisible() throws -> Bool {
        if let visible { return visible }
        let transaction = try activeTransaction()
        let result =
            try transaction is ReadWriteTransaction
            || transaction.snapshotHasTable(FullTextSearch.tableName(registeredName: registeredName))
        visible = result
        return result
    }

    /// The transaction for a query, once the full-text search is known to exist in its snapshot.
    /// - Throws: ``DatabaseError`` `.misuse` after the transaction ended, `.extensionFailure` when
    ///   the registration is not part of the transaction's snapshot.
    func queryTransaction() throws -> ReadTransaction {
        let transaction = try activeTransaction()
        guard try isVisible() else {
            throw DatabaseError(
                .extensionFailure,
                "full-text search \"\(registeredName)\" is not registered in this transaction's snapshot")
        }
        return transaction
    }

    /// The running read-write transaction.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or after it ended.
    func activeWriteTransaction() throws -> ReadWriteTransaction {
        guard let write = try activeTransaction() as? ReadWriteTransaction else {
            throw DatabaseError(.misuse, "the full-text search can only change inside a read-write transaction")
        }
        return write
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

    /// Re-derives the text of `row`: the handler's text replaces it, or no text removes it.
    func reindex(_ row: ExtensionRow) throws {
        let transaction = try activeTransaction()
        let text = try search.handler.values(for: row, in: transaction, startingWith: [:])
        // Delete then insert: every FTS module supports both, not all support OR REPLACE.
        try run(sql.deleteRowid, [.integer(row.rowid)])
        guard !text.isEmpty else { return }
        if let unknown = text.keys.first(where: { !search.columns.contains($0) }) {
            throw DatabaseError(
                .extensionFailure,
                "the handler of full-text search \"\(registeredName)\" set unknown column \"\(unknown)\"",
                collection: row.collectionKey.collection, key: row.collectionKey.key)
        }
        var bindings: [SQLiteValue] = [.integer(row.rowid)]
        for column in search.columns { bindings.append(text[column].map { .text($0) } ?? .null) }
        try run(sql.insert, bindings)
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension FullTextSearchTransaction: Sendable {}
