import CofferSQLite
import Foundation

/// Enumerations over collections, keys, objects, metadata and whole rows.
///
/// Each closure gets an `inout Bool` stop flag. Filters see only keys, so rejected rows are
/// never deserialized. Changing the database inside an enumeration without setting `stop`
/// throws `mutationDuringEnumeration` (touches are allowed). Order is SQLite's, not sorted.
extension ReadTransaction {
    /// Calls `body` with each collection that holds at least one row.
    public func enumerateCollections(_ body: (_ collection: String, _ stop: inout Bool) throws -> Void) throws {
        try forEachRow(SQL.allCollections) { stmt, stop in try body(stmt.text(0), &stop) }
    }

    /// Calls `body` with each collection that has a row for `key`.
    public func enumerateCollections(
        forKey key: String, _ body: (_ collection: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachRow(SQL.collectionsForKey, binding: key) { stmt, stop in try body(stmt.text(0), &stop) }
    }

    /// Calls `body` with each key of `collection`.
    public func enumerateKeys(
        inCollection collection: String?, _ body: (_ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachRow(SQL.enumerateKeysInCollection, binding: collection ?? "") { stmt, stop in
            try body(stmt.text(0), &stop)
        }
    }

    /// Calls `body` with each collection and key in the database.
    public func enumerateKeysInAllCollections(
        _ body: (_ collection: String, _ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachRow(SQL.enumerateKeysInAll) { stmt, stop in try body(stmt.text(0), stmt.text(1), &stop) }
    }

    /// Calls `body` with each key and object of `collection` that passes `filter`.
    public func enumerateKeysAndObjects(
        inCollection collection: String?, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: any Sendable, _ stop: inout Bool) throws -> Void
    ) throws {
        let collection = collection ?? ""
        try forEachRow(SQL.enumerateObjectsInCollection, binding: collection) { stmt, stop in
            let key = stmt.text(0)
            if let filter, !filter(key) { return }
            let ck = CollectionKey(collection: collection, key: key)
            try body(key, try cachedObject(ck, stmt, column: 1), &stop)
        }
    }

    /// Calls `body` with each key and object of `collection` that passes `filter`, as `T`.
    /// - Throws: `.typeMismatch` when a stored object is not a `T`.
    public func enumerateKeysAndObjects<T: Decodable & Sendable>(
        inCollection collection: String?, as type: T.Type, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: T, _ stop: inout Bool) throws -> Void
    ) throws {
        let collection = collection ?? ""
        guard !core.config.objectCacheEnabled else {
            try enumerateKeysAndObjects(inCollection: collection, filter: filter) { key, object, stop in
                try body(
                    key, try castDecoding(object, to: T.self, CollectionKey(collection: collection, key: key)), &stop)
            }
            return
        }
        // Without a cache every row is decoded: resolve the chain once and decode straight into T.
        let chain = configs.config(for: collection).objectChain
        let read = chain.directRead(as: T.self)
        if case .asIs? = read {
            // T is Data, stored as is. One buffer serves every row: unless `body` keeps a row's
            // bytes, the next row overwrites them in place instead of allocating and freeing a
            // `Data` per row, a large part of a raw enumeration's cost (BENCHMARKS.md, W4r). A
            // large row is not reused: if `body` kept it, reusing would first copy it.
            var bytes = Data()
            try forEachRow(SQL.enumerateObjectsInCollection, binding: collection) { stmt, stop in
                let key = stmt.text(0)
                if let filter, !filter(key) { return }
                stmt.copyBytes(1, into: &bytes)
                defer { Self.releaseIfLarge(&bytes) }
                try body(key, unsafeBitCast(bytes, to: T.self), &stop)
            }
            return
        }
        try forEachRow(SQL.enumerateObjectsInCollection, binding: collection) { stmt, stop in
            let key = stmt.text(0)
            if let filter, !filter(key) { return }
            let object = try decodeObject(
                stmt.data(1) ?? Data(), as: T.self, chain: chain, read, collection: collection, key: key)
            try body(key, object, &stop)
        }
    }

    /// Calls `body` with each collection, key and object in the database that passes `filter`.
    public func enumerateKeysAndObjectsInAllCollections(
        filter: ((_ collection: String, _ key: String) -> Bool)? = nil,
        _ body: (_ collection: String, _ key: String, _ object: any Sendable, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachRow(SQL.enumerateObjectsInAll) { stmt, stop in
            let ck = CollectionKey(collection: stmt.text(0), key: stmt.text(1))
            if let filter, !filter(ck.collection, ck.key) { return }
            try body(ck.collection, ck.key, try cachedObject(ck, stmt, column: 2), &stop)
        }
    }

    /// Calls `body` with each key and metadata of `collection` that passes `filter`.
    public func enumerateKeysAndMetadata(
        inCollection collection: String?, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        let collection = collection ?? ""
        try forEachRow(SQL.enumerateMetadataInCollection, binding: collection) { stmt, stop in
            let key = stmt.text(0)
            if let filter, !filter(key) { return }
            try body(key, try cachedMetadata(CollectionKey(collection: collection, key: key), stmt, column: 1), &stop)
        }
    }

    /// Calls `body` with each collection, key and metadata in the database that passes `filter`.
    public func enumerateKeysAndMetadataInAllCollections(
        filter: ((_ collection: String, _ key: String) -> Bool)? = nil,
        _ body: (_ collection: String, _ key: String, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachRow(SQL.enumerateMetadataInAll) { stmt, stop in
            let ck = CollectionKey(collection: stmt.text(0), key: stmt.text(1))
            if let filter, !filter(ck.collection, ck.key) { return }
            try body(ck.collection, ck.key, try cachedMetadata(ck, stmt, column: 2), &stop)
        }
    }

    /// Calls `body` with each key, object and metadata of `collection` that passes `filter`.
    public func enumerateRows(
        inCollection collection: String?, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: any Sendable, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        let collection = collection ?? ""
        try forEachRow(SQL.enumerateRowsInCollection, binding: collection) { stmt, stop in
            let key = stmt.text(1)
            if let filter, !filter(key) { return }
            let ck = CollectionKey(collection: collection, key: key)
            try body(key, try cachedObject(ck, stmt, column: 2), try cachedMetadata(ck, stmt, column: 3), &stop)
        }
    }

    /// Calls `body` with each collection, key, object and metadata in the database that passes `filter`.
    public func enumerateRowsInAllCollections(
        filter: ((_ collection: String, _ key: String) -> Bool)? = nil,
        _ body: (
            _ collection: String, _ key: String, _ object: any Sendable, _ metadata: (any Sendable)?,
            _ stop: inout Bool
        ) throws -> Void
    ) throws {
        try forEachRow(SQL.enumerateRowsInAll) { stmt, stop in
            let ck = CollectionKey(collection: stmt.text(1), key: stmt.text(2))
            if let filter, !filter(ck.collection, ck.key) { return }
            try body(
                ck.collection, ck.key, try cachedObject(ck, stmt, column: 3), try cachedMetadata(ck, stmt, column: 4),
                &stop)
        }
    }

    // MARK: Row loop

    /// Steps `sql`, guarding against mutation and nested use of the same cached statement.
    func forEachRow(
        _ sql: StaticString, binding text: String? = nil, _ body: (Statement, inout Bool) throws -> Void
    ) throws {
        try checkActive()
        let stmt = try mapSQLite { try sqlite.cachedStatement(sql) }
        defer { stmt.reset() }
        if let text { try mapSQLite { try stmt.bind(text, at: 1) } }
        let mutations = core.mutationCount
        var stop = false
        while try mapSQLite({ try stmt.step() }) {
            try body(stmt, &stop)
            if stop { return }
            if core.mutationCount != mutations { throw Self.mutationDuringEnumeration() }
        }
    }

    /// The error an enumeration throws when its body changed the database without setting `stop`.
    static func mutationDuringEnumeration() -> DatabaseError {
        DatabaseError(
            .mutationDuringEnumeration, "the database was changed inside an enumeration that did not set stop")
    }

    func cachedObject(_ ck: CollectionKey, _ stmt: Statement, column: Int32) throws -> any Sendable {
        if core.config.objectCacheEnabled, let cached = core.objectCache.object(forKey: ck) { return cached }
        let object = try decodeObject(stmt.data(column) ?? Data(), ck)
        if core.config.objectCacheEnabled { core.objectCache.setObject(object, forKey: ck) }
        return object
    }

    func cachedMetadata(_ ck: CollectionKey, _ stmt: Statement, column: Int32) throws -> (any Sendable)? {
        if core.config.metadataCacheEnabled, let cached = core.metadataCache.value(forKey: ck) { return cached }
        let metadata = try stmt.data(column).map { try decodeMetadata($0, ck) }
        if core.config.metadataCacheEnabled { core.metadataCache.setValue(metadata, forKey: ck) }
        return metadata
    }
}
