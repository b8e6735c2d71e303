/// Querying the index with a ``DatabaseQuery``: the shared queries of ``QueryableIndexTransaction``.
///
/// The query's tail is appended to `SELECT "rowid" FROM "rTreeIndex_<name>"`, so it may use the
/// setup's columns and `rowid` (`WHERE minLat > ? AND maxLat < ?`). Comparisons see the stored
/// coordinates (see ``RTreeIndexSetup`` on rounding).
extension RTreeIndexTransaction: QueryableIndexTransaction {
    /// Calls `body` with each row whose box matches `query`.
    /// - Complexity: the R*Tree search plus one primary-key lookup per match.
    /// - Throws: as ``QueryableIndexTransaction/enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func enumerateMatches(
        _ query: DatabaseQuery, readingObject: Bool, readingMetadata: Bool,
        _ body: (_ row: MatchedRow, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(
            query, head: sql.selectRowids, readingObject: readingObject, readingMetadata: readingMetadata, body)
    }

    /// The number of boxes matching `query` (`SELECT COUNT(*) … <query>`).
    /// - Complexity: the R*Tree search; no row is read or decoded.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for a malformed or aggregate query, `.misuse`
    ///   after the transaction ended.
    public func count(matching query: DatabaseQuery) throws -> Int {
        try countMatches(query)
    }

    /// The rowid of each of `keys` in `collection` that has a box in the index (YapDatabase's
    /// `rowidsForKeys:inCollection:`), for queries on `rowid`.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func rowids(forKeys keys: some Sequence<String>, inCollection collection: String?) throws -> [String: Int64]
    {
        try indexedRowids(forKeys: keys, inCollection: collection)
    }

    /// The transaction the index serves, while it runs.
    /// - Throws: ``DatabaseError`` `.misuse` once it has ended.
    public func transaction() throws -> ReadTransaction {
        try context.transaction()
    }
}
