/// The proxy's reads and changes through a ``TypedCollection``, checked against the
/// collection's registered codecs as transactions check them.
extension ConnectionProxy {
    /// The object for `key` as the proxy sees it (its pending value first, the database second).
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the collection stores another type, or any
    ///   error from reading.
    public func object<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws -> O? {
        try database.checkTypes(of: collection)
        return try object(forKey: key, inCollection: collection.name, as: O.self)
    }

    /// The metadata for `key` as the proxy sees it (nil when the row has none, and always for a
    /// ``CollectionHandle``, whose metadata has no type).
    /// - Throws: ``DatabaseError`` `.typeMismatch`, or any error from reading.
    public func metadata<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws -> M? {
        try database.checkTypes(of: collection)
        guard M.self != NoMetadata.self else { return nil }
        return try metadata(forKey: key, inCollection: collection.name, as: M.self)
    }

    /// Stores `object` (and `metadata`) for `key`, replacing the row, in the next batch.
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the collection stores other types (nothing
    ///   is staged).
    public func set<O, M>(_ object: O, forKey key: String, in collection: TypedCollection<O, M>, metadata: M? = nil)
        throws
    {
        try database.checkTypes(of: collection)
        setObject(object, forKey: key, inCollection: collection.name, withMetadata: metadata)
    }

    /// Removes the row for `key` in the next batch.
    public func removeObject<O, M>(forKey key: String, in collection: TypedCollection<O, M>) {
        removeObject(forKey: key, inCollection: collection.name)
    }
}
