/// What one commit did to a typed collection, for a consumer of ``Database/changes``:
///
/// ```swift
/// for await changeset in db.changes where changeset.hasChange(forKey: "n1", in: notes) { … }
/// ```
///
/// A collection emptied by `removeAllObjects` (or everything removed) counts as a change of
/// every key in it, as in the ``Connection`` queries over lists of changesets.
extension Changeset {
    /// Whether the row's object or metadata changed, or the row was removed.
    public func hasChange<O, M>(forKey key: String, in collection: TypedCollection<O, M>) -> Bool {
        changes(CollectionKey(collection: collection.name, key: key), object: true, metadata: true)
    }

    /// Whether the row's object changed, or the row was removed.
    public func hasObjectChange<O, M>(forKey key: String, in collection: TypedCollection<O, M>) -> Bool {
        changes(CollectionKey(collection: collection.name, key: key), object: true, metadata: false)
    }

    /// Whether the row's metadata changed, or the row was removed.
    public func hasMetadataChange<O, M>(forKey key: String, in collection: TypedCollection<O, M>) -> Bool {
        changes(CollectionKey(collection: collection.name, key: key), object: false, metadata: true)
    }

    /// Whether anything in `collection` changed.
    public func hasChange<O, M>(in collection: TypedCollection<O, M>) -> Bool {
        changes(collection: collection.name, object: true, metadata: true)
    }
}
