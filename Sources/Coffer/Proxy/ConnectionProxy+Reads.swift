/// Reads: the proxy's pending value first, the database second.
///
/// A pending removal reads as nil. Rows without a pending change are read through
/// ``ConnectionProxy/readConnection`` in a short read transaction — unless
/// ``ConnectionProxy/fetchedCollectionsFilter`` rejects the collection, in which case they read as nil.
/// Once the database is closed, every read throws ``DatabaseError`` `.closed`.
extension ConnectionProxy {
    /// Where a read finds its answer.
    enum Lookup {
        /// The proxy holds a change: this is the value (nil for a removal or cleared metadata).
        case pending((any Sendable)?)
        /// Ask the database.
        case database
        /// The filter keeps the database out of it: nil.
        case filtered
    }

    /// The object for `key` in `collection`, as the proxy sees it.
    ///
    /// - Complexity: O(1) when the proxy holds a change for the row; otherwise one read
    ///   transaction (served from the connection's cache when it can).
    /// - Throws: ``DatabaseError`` from reading the database (for example `.serialization` when
    ///   the stored bytes do not decode).
    public func object(forKey key: String, inCollection collection: String?) throws -> (any Sendable)? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        switch try objectLookup(ck) {
        case .pending(let value): return value
        case .filtered: return nil
        case .database: return try readConnection.read { tx in try tx.object(forKey: key, inCollection: ck.collection) }
        }
    }

    /// The object for `key` in `collection`, as `T`.
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the value is not a `T`, or any error from reading.
    public func object<T>(forKey key: String, inCollection collection: String?, as type: T.Type) throws -> T? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        switch try objectLookup(ck) {
        case .pending(let value): return try value.map { try Self.cast($0, to: T.self, ck) }
        case .filtered: return nil
        case .database:
            return try readConnection.read { tx in try tx.object(forKey: key, inCollection: ck.collection, as: T.self) }
        }
    }

    /// The object for `key` in `collection`, as `T`; stored JSON (``EncodedValue``) is decoded.
    /// - Throws: ``DatabaseError`` `.typeMismatch` or `.serialization`, or any error from reading.
    public func object<T: Decodable & Sendable>(
        forKey key: String, inCollection collection: String?, as type: T.Type
    ) throws -> T? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        switch try objectLookup(ck) {
        case .pending(let value): return try value.map { try Self.castDecoding($0, to: T.self, ck) }
        case .filtered: return nil
        case .database:
            return try readConnection.read { tx in try tx.object(forKey: key, inCollection: ck.collection, as: T.self) }
        }
    }

    /// The metadata for `key` in `collection`, as the proxy sees it (nil when the row has none).
    /// - Throws: ``DatabaseError`` from reading the database.
    public func metadata(forKey key: String, inCollection collection: String?) throws -> (any Sendable)? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        switch try metadataLookup(ck) {
        case .pending(let value): return value
        case .filtered: return nil
        case .database:
            return try readConnection.read { tx in try tx.metadata(forKey: key, inCollection: ck.collection) }
        }
    }

    /// The metadata for `key` in `collection`, as `T`.
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the value is not a `T`, or any error from reading.
    public func metadata<T>(forKey key: String, inCollection collection: String?, as type: T.Type) throws -> T? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        switch try metadataLookup(ck) {
        case .pending(let value): return try value.map { try Self.cast($0, to: T.self, ck) }
        case .filtered: return nil
        case .database:
            return try readConnection.read { tx in try tx.metadata(forKey: key, inCollection: ck.collection, as: T.self)
            }
        }
    }

    /// The metadata for `key` in `collection`, as `T`; stored JSON (``EncodedValue``) is decoded.
    /// - Throws: ``DatabaseError`` `.typeMismatch` or `.serialization`, or any error from reading.
    public func metadata<T: Decodable & Sendable>(
        forKey key: String, inCollection collection: String?, as type: T.Type
    ) throws -> T? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        switch try metadataLookup(ck) {
        case .pending(let value): return try value.map { try Self.castDecoding($0, to: T.self, ck) }
        case .filtered: return nil
        case .database:
            return try readConnection.read { tx in try tx.metadata(forKey: key, inCollection: ck.collection, as: T.self)
            }
        }
    }

    /// The object and metadata of one row as the proxy sees it, or nil when the row does not exist.
    /// - Complexity: at most one read transaction.
    /// - Throws: ``DatabaseError`` from reading the database.
    public func objectAndMetadata(
        forKey key: String, inCollection collection: String?
    ) throws -> (object: any Sendable, metadata: (any Sendable)?)? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        let objectSource = try objectLookup(ck)
        let metadataSource = try metadataLookup(ck)
        let object: (any Sendable)?
        var metadata: (any Sendable)?
        switch (objectSource, metadataSource) {
        case (.pending(let pendingObject), .pending(let pendingMetadata)):
            object = pendingObject
            metadata = pendingMetadata
        case (.pending(let pendingObject), .database):
            object = pendingObject
            metadata = try readConnection.read { tx in try tx.metadata(forKey: key, inCollection: ck.collection) }
        case (.pending(let pendingObject), .filtered):
            object = pendingObject
            metadata = nil
        case (.database, _):
            let row = try readConnection.read { tx in
                try tx.objectAndMetadata(forKey: key, inCollection: ck.collection)
            }
            object = row?.object
            if case .pending(let pendingMetadata) = metadataSource {
                metadata = pendingMetadata
            } else {
                metadata = row?.metadata
            }
        case (.filtered, _):
            return nil
        }
        guard let object else { return nil }
        return (object, metadata)
    }

    // MARK: Helpers

    /// Where the object of `ck` is read from.
    /// - Throws: ``DatabaseError`` `.closed` once the database is closed, whatever the proxy holds.
    func objectLookup(_ ck: CollectionKey) throws -> Lookup {
        try database.gate.checkOpen()
        let (pending, filter) = state.withLock { state -> (PendingValue?, AllowList<String>) in
            (state.rows[ck]?.object, state.filter)
        }
        if let pending { return .pending(pending.readValue) }
        return filter.isAllowed(ck.collection) ? .database : .filtered
    }

    /// Where the metadata of `ck` is read from.
    /// - Throws: ``DatabaseError`` `.closed` once the database is closed.
    func metadataLookup(_ ck: CollectionKey) throws -> Lookup {
        try database.gate.checkOpen()
        let (pending, filter) = state.withLock { state -> (PendingValue?, AllowList<String>) in
            guard let row = state.rows[ck] else { return (nil, state.filter) }
            if let metadata = row.metadata { return (metadata, state.filter) }
            // A pending removal takes the metadata with it.
            if row.object?.isRemoved == true { return (.removed, state.filter) }
            return (nil, state.filter)
        }
        if let pending { return .pending(pending.readValue) }
        return filter.isAllowed(ck.collection) ? .database : .filtered
    }

    static func cast<T>(_ value: any Sendable, to type: T.Type, _ ck: CollectionKey) throws -> T {
        if let typed = value as? T { return typed }
        throw DatabaseError(
            .typeMismatch, "the pending value is a \(Swift.type(of: value)), not a \(T.self)",
            collection: ck.collection, key: ck.key)
    }

    static func castDecoding<T: Decodable>(_ value: any Sendable, to type: T.Type, _ ck: CollectionKey) throws -> T {
        if let typed = value as? T { return typed }
        if let encoded = value as? EncodedValue {
            do {
                return try encoded.decode(as: T.self)
            } catch {
                throw DatabaseError(
                    .serialization, "cannot decode the pending value as \(T.self)", collection: ck.collection,
                    key: ck.key, underlying: error)
            }
        }
        return try cast(value, to: T.self, ck)
    }
}
