/// Querying the index with a ``DatabaseQuery``.
///
/// The query's tail is appended to `SELECT "rowid" FROM "secondaryIndex_<name>"`, so it may use
/// the setup's columns, `rowid`, `ORDER BY` and `LIMIT`; rows are reported in the order SQLite
/// returns them. Each enumeration closure gets a `stop` flag; changing the database inside one
/// without setting `stop` throws `mutationDuringEnumeration`.
extension SecondaryIndexTransaction {
    /// Calls `body` with the collection and key of each row matching `query`.
    /// - Complexity: the query's cost plus one primary-key lookup per match.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for SQL that does not compile or an aggregate
    ///   query, `.misuse` after the transaction ended, or whatever `body` throws.
    public func enumerateKeys(
        matching query: DatabaseQuery, _ body: (_ collection: String, _ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(query, object: false, metadata: false) { ck, _, _, stop in try body(ck.collection, ck.key, &stop)
        }
    }

    /// Calls `body` with the collection, key and object of each row matching `query`.
    /// - Complexity: the query's cost plus one lookup (and a decode when not cached) per match.
    /// - Throws: as ``enumerateKeys(matching:_:)``, and `.serialization` when an object does not decode.
    public func enumerateKeysAndObjects(
        matching query: DatabaseQuery,
        _ body: (_ collection: String, _ key: String, _ object: any Sendable, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(query, object: true, metadata: false) { ck, object, _, stop in
            guard let object else { return }
            try body(ck.collection, ck.key, object, &stop)
        }
    }

    /// Calls `body` with the collection, key and metadata of each row matching `query`.
    /// - Complexity: the query's cost plus one lookup (and a decode when not cached) per match.
    /// - Throws: as ``enumerateKeys(matching:_:)``, and `.serialization` when metadata does not decode.
    public func enumerateKeysAndMetadata(
        matching query: DatabaseQuery,
        _ body: (_ collection: String, _ key: String, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(query, object: false, metadata: true) { ck, _, metadata, stop in
            try body(ck.collection, ck.key, metadata, &stop)
        }
    }

    /// Calls `body` with the collection, key, object and metadata of each row matching `query`.
    /// - Complexity: the query's cost plus one lookup (and decodes when not cached) per match.
    /// - Throws: as ``enumerateKeysAndObjects(matching:_:)``.
    public func enumerateRows(
        matching query: DatabaseQuery,
        _ body: (
            _ collection: String, _ key: String, _ object: any Sendable, _ metadata: (any Sendable)?, _ stop: inout Bool
        ) throws -> Void
    ) throws {
        try enumerate(query, object: true, metadata: true) { ck, object, metadata, stop in
            guard let object else { return }
            try body(ck.collection, ck.key, object, metadata, &stop)
        }
    }

    /// The collection and key of every row matching `query`, in SQLite's order.
    /// - Complexity: as ``enumerateKeys(matching:_:)``; O(matches) memory.
    /// - Throws: as ``enumerateKeys(matching:_:)``.
    public func keys(matching query: DatabaseQuery) throws -> [CollectionKey] {
        var keys: [CollectionKey] = []
        try enumerateKeys(matching: query) { collection, key, _ in
            keys.append(CollectionKey(collection: collection, key: key))
        }
        return keys
    }

    /// Calls `body` with the value of `column` in each index entry matching `query` (no row lookup).
    /// - Throws: ``DatabaseError`` `.invalidQuery` when `column` is not in the setup or the query is
    ///   malformed, `.misuse` after the transaction ended, or whatever `body` throws.
    public func enumerateIndexedValues(
        inColumn column: String, matching query: DatabaseQuery,
        _ body: (_ value: DatabaseValue, _ stop: inout Bool) throws -> Void
    ) throws {
        guard index.setup.column(named: column) != nil else {
            throw DatabaseError.invalidQuery("secondary index \"\(registeredName)\" has no column \"\(column)\"")
        }
        try rejectAggregate(query)
        try checkQueryable()
        let head = "SELECT \(ExtensionTables.quote(column)) FROM \(sql.derived.quotedTable)"
        try context.tables.query(ExtensionQuery(head, query)) { row, stop in try body(row.value(at: 0), &stop) }
    }

    /// The number of index entries matching `query` (`SELECT COUNT(*) … <query>`).
    /// - Complexity: the query's cost; no row is read or decoded.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for a malformed or aggregate query, `.misuse`
    ///   after the transaction ended.
    public func count(matching query: DatabaseQuery) throws -> Int {
        try countMatches(query)
    }

    /// Runs an aggregate query (``DatabaseQuery/aggregate(_:format:arguments:)``) and returns its
    /// value: `.null` when no entry matched (for `SUM`, `MAX`, …), `.integer` or `.real` otherwise.
    ///
    /// ```swift
    /// let total = try index.performAggregateQuery(.aggregate("SUM(salary)", format: "WHERE department = ?", "eng"))
    /// total.int64Value   // Int64?
    /// ```
    /// - Throws: ``DatabaseError`` `.invalidQuery` when the query is not an aggregate or does not
    ///   compile, `.misuse` after the transaction ended.
    public func performAggregateQuery(_ query: DatabaseQuery) throws -> DatabaseValue {
        guard let function = query.aggregateFunction else {
            throw DatabaseError.invalidQuery("performAggregateQuery needs a query made with DatabaseQuery.aggregate")
        }
        return try singleValue(query, head: "SELECT \(function) FROM \(sql.derived.quotedTable)")
    }

    // MARK: Running

    /// The rowid of each of `keys` in `collection` that has an entry in the index (YapDatabase's
    /// `rowidsForKeys:inCollection:`), for queries on `rowid`.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func rowids(forKeys keys: some Sequence<String>, inCollection collection: String?) throws -> [String: Int64]
    {
        try indexedRowids(forKeys: keys, inCollection: collection)
    }

    private func enumerate(
        _ query: DatabaseQuery, object: Bool, metadata: Bool,
        _ body: (CollectionKey, (any Sendable)?, (any Sendable)?, inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(query, head: sql.selectRowids, object: object, metadata: metadata, body)
    }
}
