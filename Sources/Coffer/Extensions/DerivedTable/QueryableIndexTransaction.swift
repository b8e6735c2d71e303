/// An index whose rows are found with a ``DatabaseQuery``: the queries ``SecondaryIndexTransaction``
/// and ``RTreeIndexTransaction`` share.
///
/// The query's tail (`WHERE …`, `ORDER BY …`, `LIMIT …`) is appended to
/// `SELECT "rowid" FROM "<the index's table>"`, so it may use the index's columns and `rowid`;
/// rows are reported in the order SQLite returns them. Each enumeration closure gets a `stop`
/// flag; changing the database inside one without setting `stop` throws
/// `mutationDuringEnumeration`. Everything but ``enumerateMatches(_:readingObject:readingMetadata:_:)``,
/// ``count(matching:)`` and ``transaction()`` comes from this protocol's extension.
public protocol QueryableIndexTransaction: AnyObject {
    /// Calls `body` with each row matching `query`, decoding the object and the metadata only
    /// when asked for (through the connection's caches).
    /// - Complexity: the query's cost plus one primary-key lookup (and decodes) per match.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for SQL that does not compile or an aggregate
    ///   query, `.serialization` when a value asked for does not decode, `.misuse` after the
    ///   transaction ended, or whatever `body` throws.
    func enumerateMatches(
        _ query: DatabaseQuery, readingObject: Bool, readingMetadata: Bool,
        _ body: (_ row: MatchedRow, _ stop: inout Bool) throws -> Void
    ) throws
    /// The number of index entries matching `query` (`SELECT COUNT(*) … <query>`).
    /// - Complexity: the query's cost; no row is read or decoded.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for a malformed or aggregate query, `.misuse`
    ///   after the transaction ended.
    func count(matching query: DatabaseQuery) throws -> Int
    /// The transaction the index serves, while it runs.
    /// - Throws: ``DatabaseError`` `.misuse` once it has ended.
    func transaction() throws -> ReadTransaction
}

extension QueryableIndexTransaction {
    /// Calls `body` with the collection and key of each row matching `query`.
    /// - Complexity: the query's cost plus one primary-key lookup per match.
    /// - Throws: as ``enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func enumerateKeys(
        matching query: DatabaseQuery, _ body: (_ collection: String, _ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(query, readingObject: false, readingMetadata: false) { row, stop in
            try body(row.collectionKey.collection, row.collectionKey.key, &stop)
        }
    }

    /// Calls `body` with the collection, key and object of each row matching `query`.
    /// - Throws: as ``enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func enumerateKeysAndObjects(
        matching query: DatabaseQuery,
        _ body: (_ collection: String, _ key: String, _ object: any Sendable, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(query, readingObject: true, readingMetadata: false) { row, stop in
            guard let object = row.object else { return }
            try body(row.collectionKey.collection, row.collectionKey.key, object, &stop)
        }
    }

    /// Calls `body` with the collection, key and metadata of each row matching `query`.
    /// - Throws: as ``enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func enumerateKeysAndMetadata(
        matching query: DatabaseQuery,
        _ body: (_ collection: String, _ key: String, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateMatches(query, readingObject: false, readingMetadata: true) { row, stop in
            try body(row.collectionKey.collection, row.collectionKey.key, row.metadata, &stop)
        }
    }

    /// Calls `body` with the collection, key, object and metadata of each row matching `query`.
    /// - Throws: as ``enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func enumerateRows(
        matching query: DatabaseQuery,
        _ body: (
            _ collection: String, _ key: String, _ object: any Sendable, _ metadata: (any Sendable)?, _ stop: inout Bool
        ) throws -> Void
    ) throws {
        try enumerateMatches(query, readingObject: true, readingMetadata: true) { row, stop in
            guard let object = row.object else { return }
            try body(row.collectionKey.collection, row.collectionKey.key, object, row.metadata, &stop)
        }
    }

    /// The collection and key of every row matching `query`, in SQLite's order.
    /// - Complexity: as ``enumerateKeys(matching:_:)``; O(matches) memory.
    /// - Throws: as ``enumerateMatches(_:readingObject:readingMetadata:_:)``.
    public func keys(matching query: DatabaseQuery) throws -> [CollectionKey] {
        var keys: [CollectionKey] = []
        try enumerateMatches(query, readingObject: false, readingMetadata: false) { row, _ in
            keys.append(row.collectionKey)
        }
        return keys
    }

    /// Calls `body` with the key and object of each row of `collection` matching `query`, in
    /// SQLite's order; matches in other collections the index covers are skipped.
    /// - Throws: as ``enumerateKeysAndObjects(matching:_:)``, and ``DatabaseError`` `.typeMismatch`
    ///   when the collection's registered codec stores another type.
    public func enumerateKeysAndObjects<O, M>(
        matching query: DatabaseQuery, in collection: TypedCollection<O, M>,
        _ body: (_ key: String, _ object: O, _ stop: inout Bool) throws -> Void
    ) throws {
        try transaction().enumerateMatches(in: collection, { try enumerateKeysAndObjects(matching: query, $0) }, body)
    }

    /// The key and object of every row of `collection` matching `query`, in SQLite's order.
    /// - Throws: as ``enumerateKeysAndObjects(matching:in:_:)``.
    public func objects<O, M>(matching query: DatabaseQuery, in collection: TypedCollection<O, M>) throws -> [(
        key: String, object: O
    )] {
        var objects: [(key: String, object: O)] = []
        try enumerateKeysAndObjects(matching: query, in: collection) { key, object, _ in objects.append((key, object)) }
        return objects
    }
}
