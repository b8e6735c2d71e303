/// Querying the index with a ``DatabaseQuery``.
///
/// The query's tail is appended to `SELECT "rowid" FROM "rTreeIndex_<name>"`, so it may use the
/// setup's columns and `rowid` (`WHERE minLat > ? AND maxLat < ?`); rows are reported in the
/// order SQLite returns them. Comparisons see the stored coordinates (see ``RTreeIndexSetup``
/// on rounding). Each enumeration closure gets a `stop` flag; changing the database inside one
/// without setting `stop` throws `mutationDuringEnumeration`.
extension RTreeIndexTransaction {
    /// Calls `body` with the collection and key of each row whose box matches `query`.
    /// - Complexity: the R*Tree search plus one primary-key lookup per match.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for SQL that does not compile or an aggregate
    ///   query, `.misuse` after the transaction ended, or whatever `body` throws.
    public func enumerateKeys(
        matching query: DatabaseQuery, _ body: (_ collection: String, _ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(query, object: false, metadata: false) { ck, _, _, stop in try body(ck.collection, ck.key, &stop)
        }
    }

    /// Calls `body` with the collection, key and object of each row whose box matches `query`.
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

    /// Calls `body` with the collection, key and metadata of each row whose box matches `query`.
    /// - Throws: as ``enumerateKeys(matching:_:)``, and `.serialization` when metadata does not decode.
    public func enumerateKeysAndMetadata(
        matching query: DatabaseQuery,
        _ body: (_ collection: String, _ key: String, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(query, object: false, metadata: true) { ck, _, metadata, stop in
            try body(ck.collection, ck.key, metadata, &stop)
        }
    }

    /// Calls `body` with the collection, key, object and metadata of each row whose box matches `query`.
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

    /// The collection and key of every row whose box matches `query`, in SQLite's order.
    /// - Throws: as ``enumerateKeys(matching:_:)``.
    public func keys(matching query: DatabaseQuery) throws -> [CollectionKey] {
        var keys: [CollectionKey] = []
        try enumerateKeys(matching: query) { collection, key, _ in
            keys.append(CollectionKey(collection: collection, key: key))
        }
        return keys
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

    private func enumerate(
        _ query: DatabaseQuery, object: Bool, metadata: Bool,
        _ body: (CollectionKey, (any Sendable)?, (any Sendable)?, inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(query, head: sql.selectRowids, object: object, metadata: metadata, body)
    }
}
