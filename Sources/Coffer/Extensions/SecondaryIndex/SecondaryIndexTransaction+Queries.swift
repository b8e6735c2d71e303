/// Querying the index with a ``DatabaseQuery``: the shared queries of
/// ``QueryableIndexTransaction``, and those only a secondary index has.
///
/// The query's tail is appended to `SELECT "rowid" FROM "secondaryIndex_<name>"`, so it may use
/// the setup's columns, `rowid`, `ORDER BY` and `LIMIT`.
extension SecondaryIndexTransaction: QueryableIndexTransaction {
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

    /// Calls `body` with each row matching `query`.
    /// - Throws: as ``QueryableIndexTransaction/enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func enumerateMatches(
        _ query: DatabaseQuery, readingObject: Bool, readingMetadata: Bool,
        _ body: (_ row: MatchedRow, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(
            query, head: sql.selectRowids, readingObject: readingObject, readingMetadata: readingMetadata, body)
    }

    /// The transaction the index serves, while it runs.
    /// - Throws: ``DatabaseError`` `.misuse` once it has ended.
    public func transaction() throws -> ReadTransaction {
        try context.transaction()
    }
}
