public import Foundation

/// Writes through a ``TypedCollection``: the string-keyed writes, taking the handle's types.
///
/// Writes that carry a value check the handle against the collection's registered codecs first
/// (``DatabaseError`` `.typeMismatch`, nothing written), as typed reads do.
extension ReadWriteTransaction {
    /// Stores `object` (and `metadata`) for `key`, replacing any existing row — YapDatabase's
    /// `setObject:forKey:inCollection:withMetadata:`, so a row set without metadata has none.
    @inlinable
    public func set<O, M>(_ object: O, forKey key: String, in collection: TypedCollection<O, M>, metadata: M? = nil)
        throws
    {
        // Inlined so that the caller's concrete `O` and `M?` are boxed into the existentials
        // `setObject` takes directly (unspecialized, that boxing goes through the runtime), and a
        // `Data` handle's objects are not boxed at all.
        try checkTypes(of: collection)
        if O.self == Data.self, metadata == nil, let data = object as? Data {
            try setObject(data, forKey: key, inCollection: collection.name)
            return
        }
        try setObject(object, forKey: key, inCollection: collection.name, withMetadata: metadata)
    }

    /// Replaces the object of an existing row and keeps its metadata; does nothing when the row
    /// does not exist.
    public func replace<O, M>(_ object: O, forKey key: String, in collection: TypedCollection<O, M>) throws {
        try checkTypes(of: collection)
        try replaceObject(object, forKey: key, inCollection: collection.name)
    }

    /// Replaces the metadata of an existing row (nil removes it) and keeps its object; does
    /// nothing when the row does not exist.
    public func replaceMetadata<O, M>(_ metadata: M?, forKey key: String, in collection: TypedCollection<O, M>)
        throws
    {
        try checkTypes(of: collection)
        try replaceMetadata(metadata, forKey: key, inCollection: collection.name)
    }

    /// Removes the row for `key`, if there is one.
    public func removeObject<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws {
        try removeObject(forKey: key, inCollection: collection.name)
    }

    /// Removes the rows for `keys` that exist.
    public func removeObjects<O, M>(forKeys keys: [String], in collection: TypedCollection<O, M>) throws {
        try removeObjects(forKeys: keys, inCollection: collection.name)
    }

    /// Removes every row of `collection`.
    public func removeAllObjects<O, M>(in collection: TypedCollection<O, M>) throws {
        try removeAllObjects(inCollection: collection.name)
    }

    /// Marks the row's object as changed without rewriting it (extensions and observers see an update).
    public func touchObject<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws {
        try touchObject(forKey: key, inCollection: collection.name)
    }

    /// Marks the row's metadata as changed without rewriting it.
    public func touchMetadata<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws {
        try touchMetadata(forKey: key, inCollection: collection.name)
    }

    /// Marks the whole row as changed without rewriting it.
    public func touchRow<O, M>(forKey key: String, in collection: TypedCollection<O, M>) throws {
        try touchRow(forKey: key, inCollection: collection.name)
    }
}
