/// Reads through a ``TypedCollection``: the string-keyed reads, returning the handle's types.
///
/// Each read first checks the handle against the collection's registered codecs (a cached value
/// of the right type proves them compatible already), so a handle for the wrong type fails with
/// ``DatabaseError`` `.typeMismatch` on first use even when the collection is empty.
extension ReadTransaction {
    /// Whether a row exists for `key` in `collection`.
    public func hasObject<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws -> Bool {
        try hasObject(forKey: key, inCollection: collection.name)
    }

    /// The number of rows in `collection`.
    public func numberOfKeys<O, M>(in collection: TypedCollection<O, M>) throws -> Int {
        try numberOfKeys(inCollection: collection.name)
    }

    /// Every key of `collection`, in SQLite's order.
    public func allKeys<O, M>(in collection: TypedCollection<O, M>) throws -> [String] {
        try allKeys(inCollection: collection.name)
    }

    /// The object stored for `key`, or nil when there is no such row.
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the collection stores another type,
    ///   `.serialization` when the stored bytes do not decode.
    @inlinable
    public func object<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws -> O? {
        // Inlined like the string-keyed typed read: a cache hit is one cast to a concrete type,
        // and a cached `O` proves the handle and the codec agree.
        let cached = try cachedObject(forKey: key, inCollection: collection.name)
        if let cached, let typed = cached as? O { return typed }
        try checkTypes(of: collection)
        return try object(forKey: key, inCollection: collection.name, as: O.self, cached: cached)
    }

    /// The metadata stored for `key` (nil when the row has none or does not exist, and always
    /// for a ``CollectionHandle``, whose metadata has no type).
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the collection's metadata is of another type.
    public func metadata<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws -> M? {
        try checkTypes(of: collection)
        guard M.self != NoMetadata.self else { return nil }
        return try metadata(forKey: key, inCollection: collection.name, as: M.self)
    }

    /// The object and metadata of one row, or nil when the row does not exist.
    public func objectAndMetadata<O, M>(
        forKey key: String, in collection: TypedCollection<O, M>
    ) throws -> (object: O, metadata: M?)? {
        guard let object = try object(forKey: key, in: collection) else { return nil }
        return (object, try metadata(forKey: key, in: collection))
    }

    /// Calls `body` with each key of `collection`.
    public func enumerateKeys<O, M>(
        in collection: TypedCollection<O, M>, _ body: (_ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateKeys(inCollection: collection.name, body)
    }

    /// Calls `body` with each key and object of `collection` that passes `filter`.
    public func enumerateKeysAndObjects<O, M>(
        in collection: TypedCollection<O, M>, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: O, _ stop: inout Bool) throws -> Void
    ) throws {
        try checkTypes(of: collection)
        try enumerateKeysAndObjects(inCollection: collection.name, as: O.self, filter: filter, body)
    }

    /// Calls `body` with each key and metadata of `collection` that passes `filter`.
    public func enumerateKeysAndMetadata<O, M>(
        in collection: TypedCollection<O, M>, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ metadata: M?, _ stop: inout Bool) throws -> Void
    ) throws {
        try checkTypes(of: collection)
        let name = collection.name
        try enumerateKeysAndMetadata(inCollection: name, filter: filter) { key, metadata, stop in
            try body(key, try typedMetadata(metadata, M.self, name, key), &stop)
        }
    }

    /// Calls `body` with each key, object and metadata of `collection` that passes `filter`.
    public func enumerateRows<O, M>(
        in collection: TypedCollection<O, M>, filter: ((_ key: String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: O, _ metadata: M?, _ stop: inout Bool) throws -> Void
    ) throws {
        try checkTypes(of: collection)
        let name = collection.name
        try enumerateRows(inCollection: name, filter: filter) { key, object, metadata, stop in
            try body(key, try typed(object, O.self, name, key), try typedMetadata(metadata, M.self, name, key), &stop)
        }
    }

    /// Calls `body` once per key with its index in `keys` and its object (nil when absent).
    public func enumerateObjects<O, M>(
        forKeys keys: [String], in collection: TypedCollection<O, M>,
        _ body: (_ index: Int, _ object: O?, _ stop: inout Bool) throws -> Void
    ) throws {
        try checkTypes(of: collection)
        let name = collection.name
        try enumerateObjects(forKeys: keys, inCollection: name) { index, object, stop in
            try body(index, try object.map { try typed($0, O.self, name, keys[index]) }, &stop)
        }
    }

    /// The objects stored for `keys`, in the same order, nil where a key has no row.
    public func objects<O, M>(forKeys keys: [String], in collection: TypedCollection<O, M>) throws -> [O?] {
        var objects = [O?](repeating: nil, count: keys.count)
        try enumerateObjects(forKeys: keys, in: collection) { index, object, _ in objects[index] = object }
        return objects
    }

    /// Throws `.typeMismatch` when a codec registered for the collection stores other types than
    /// the handle names.
    @usableFromInline
    func checkTypes<O, M>(of collection: TypedCollection<O, M>) throws {
        try checkActive()
        let config = configs.config(for: collection.name)
        try collection.checkCodecs(object: config.objectChain, metadata: config.metadataChain)
    }

    /// Runs an extension query's untyped enumeration for the rows of `collection`, decoding their
    /// objects as `O` (the rows of other collections the extension covers are skipped).
    func enumerateMatches<O, M>(
        in collection: TypedCollection<O, M>,
        _ enumerate: ((_ collection: String, _ key: String, _ object: any Sendable, _ stop: inout Bool) throws -> Void)
            throws -> Void,
        _ body: (_ key: String, _ object: O, _ stop: inout Bool) throws -> Void
    ) throws {
        try checkTypes(of: collection)
        let name = collection.name
        // Both closures are the caller's, called one inside the other, never stored.
        try withoutActuallyEscaping(body) { body in
            try enumerate { match, key, object, stop in
                guard match == name else { return }
                try body(key, try typed(object, O.self, name, key), &stop)
            }
        }
    }

    /// A row's untyped metadata as `M`; nil for a handle without a metadata type.
    private func typedMetadata<M: Decodable>(
        _ value: (any Sendable)?, _ type: M.Type, _ collection: String, _ key: String
    ) throws -> M? {
        guard let value, M.self != NoMetadata.self else { return nil }
        return try typed(value, M.self, collection, key)
    }

    /// A row's untyped value as `T`, decoding the default codec's ``EncodedValue``.
    private func typed<T: Decodable>(_ value: any Sendable, _ type: T.Type, _ collection: String, _ key: String)
        throws -> T
    {
        try castDecoding(value, to: T.self, CollectionKey(collection: collection, key: key))
    }
}
