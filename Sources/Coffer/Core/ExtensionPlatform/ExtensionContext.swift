/// What an extension's transaction object can reach: the transaction it serves, its own
/// tables, and the rows it derives from.
///
/// Handed to ``ExtensionConnectionState/makeTransaction(_:)``; keep it in the transaction
/// object. It refers to the transaction weakly, so keeping it creates no cycle, and every call
/// throws `misuse` once the transaction has ended.
public final class ExtensionContext {
    /// The registration the transaction object serves (its name, tables and shared memory).
    public let registration: ExtensionRegistration
    /// The snapshot the transaction sees.
    public let snapshot: UInt64
    /// Whether the transaction may write.
    public let isReadWrite: Bool
    /// The extension's own tables.
    public let tables: ExtensionTables
    private weak var base: ReadTransaction?
    private var registeredInSnapshot: Bool?
    /// The memory-table views opened in this transaction.
    var memoryViews = MemoryViews()

    init(transaction: ReadTransaction, registration: ExtensionRegistration) {
        self.base = transaction
        self.registration = registration
        self.snapshot = transaction.snapshot
        self.isReadWrite = transaction is ReadWriteTransaction
        self.tables = ExtensionTables(transaction: transaction, registration: registration)
    }

    /// The name the extension is registered under.
    public var registeredName: String { registration.name }

    /// The transaction, while it runs.
    /// - Throws: ``DatabaseError`` `.misuse` once it has ended.
    public func transaction() throws -> ReadTransaction {
        guard let base else {
            throw DatabaseError(.misuse, "extension \"\(registeredName)\" was used after its transaction ended")
        }
        try base.checkActive()
        return base
    }

    /// The read-write transaction, while it runs.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or once it has ended.
    public func writeTransaction() throws -> ReadWriteTransaction {
        guard let write = try transaction() as? ReadWriteTransaction else {
            throw DatabaseError(
                .misuse, "extension \"\(registeredName)\" can only change inside a read-write transaction")
        }
        return write
    }

    /// Whether the extension's registration is part of this transaction's snapshot.
    ///
    /// A read transaction pinned before the registration committed already lists the extension,
    /// but not its tables (or, after registering again under the same name, an earlier
    /// registration's): a query there must fail clearly rather than read the wrong data.
    /// - Throws: ``DatabaseError`` `.misuse` once the transaction has ended.
    public func isRegisteredInSnapshot() throws -> Bool {
        let transaction = try transaction()
        if let registeredInSnapshot { return registeredInSnapshot }
        let result =
            transaction is ReadWriteTransaction || snapshot >= registration.firstSnapshot.load(ordering: .acquiring)
        registeredInSnapshot = result
        return result
    }

    /// The rowid of the row `key` in `collection` (its rowid in `database2`, which derived tables
    /// use as theirs), or nil when there is no such row.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` once the transaction has ended.
    public func rowid(forKey key: String, inCollection collection: String?) throws -> Int64? {
        try transaction().rowid(for: CollectionKey(collection: collection ?? "", key: key))
    }

    /// The row whose rowid in `database2` is `rowid`, decoding the object and the metadata only
    /// when asked for (through the connection's caches); nil when there is no such row.
    /// - Throws: ``DatabaseError`` from reading or decoding, `.misuse` once the transaction has ended.
    public func row(forRowid rowid: Int64, readingObject: Bool, readingMetadata: Bool) throws -> ExtensionRow? {
        guard
            let found = try transaction().lookUpRow(rowid, object: readingObject, metadata: readingMetadata)
        else { return nil }
        return ExtensionRow(
            collectionKey: found.ck, rowid: rowid, object: LazyValue(found.object), metadata: LazyValue(found.metadata))
    }

    /// Calls `body` with every row of the allowed collections, decoding only what is asked for
    /// (for ``ExtensionTransaction/populate()``).
    /// - Complexity: O(rows in the allowed collections), plus decoding when asked for.
    /// - Throws: ``DatabaseError`` from reading, or whatever `body` throws.
    public func enumerateRows(
        in allowedCollections: AllowList<String> = .all, readingObject: Bool, readingMetadata: Bool,
        _ body: (_ row: ExtensionRow) throws -> Void
    ) throws {
        try transaction().enumerateRowsForExtension(
            allowedCollections: allowedCollections, object: readingObject, metadata: readingMetadata, body)
    }

    /// Runs `query` on the extension's tables (its first result column must be `database2`
    /// rowids) and calls `body` with each row that still exists, decoding object and metadata
    /// only when asked (through the connection's caches).
    ///
    /// Changing the database inside `body` without setting `stop` throws
    /// `mutationDuringEnumeration`, as the core enumerations do.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for SQL that does not compile, `.extensionFailure`
    ///   for SQL touching another extension's tables or writing, or whatever `body` throws.
    public func enumerateMatchedRows(
        _ query: ExtensionQuery, readingObject: Bool, readingMetadata: Bool,
        _ body: (_ row: MatchedRow, _ stop: inout Bool) throws -> Void
    ) throws {
        let transaction = try transaction()
        let stmt = try tables.prepareQuery(query)
        try transaction.forEachMatchedRow(stmt, object: readingObject, metadata: readingMetadata) {
            stmt, ck, object, metadata, stop in
            try body(MatchedRow(collectionKey: ck, object: object, metadata: metadata, columns: ResultRow(stmt)), &stop)
        }
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension ExtensionContext: Sendable {}

/// One row found by ``ExtensionContext/enumerateMatchedRows(_:readingObject:readingMetadata:_:)``.
public struct MatchedRow {
    /// The row's collection and key.
    public let collectionKey: CollectionKey
    /// The object, when asked for (nil otherwise).
    public let object: (any Sendable)?
    /// The metadata, when asked for and present.
    public let metadata: (any Sendable)?
    /// The query's result columns for this row (column 0 is the rowid).
    public let columns: ResultRow
}

@available(*, unavailable, message: "valid only inside the enumeration that produced it")
extension MatchedRow: Sendable {}
