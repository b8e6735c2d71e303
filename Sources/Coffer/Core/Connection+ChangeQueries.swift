/// Questions about a list of changesets (from notifications or long-lived transactions).
///
/// A collection cleared with `removeAllObjects(inCollection:)` or a remove-all counts as a
/// change of every key in it. YapDatabase's `…InNotifications:` helpers, taking changesets.
extension Connection {
    /// Whether the object or metadata of the row changed, or the row was removed.
    public func hasChange(forKey key: String, inCollection collection: String?, in changesets: [Changeset]) -> Bool {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        return changesets.contains { $0.changes(ck, object: true, metadata: true) }
    }

    /// Whether the row's object changed or the row was removed.
    public func hasObjectChange(forKey key: String, inCollection collection: String?, in changesets: [Changeset])
        -> Bool
    {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        return changesets.contains { $0.changes(ck, object: true, metadata: false) }
    }

    /// Whether the row's metadata changed or the row was removed.
    public func hasMetadataChange(forKey key: String, inCollection collection: String?, in changesets: [Changeset])
        -> Bool
    {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        return changesets.contains { $0.changes(ck, object: false, metadata: true) }
    }

    /// Whether any of `keys` changed (object, metadata or removal).
    public func hasChange(
        forAnyKeys keys: some Sequence<String>, inCollection collection: String?, in changesets: [Changeset]
    ) -> Bool {
        keys.contains { hasChange(forKey: $0, inCollection: collection, in: changesets) }
    }

    /// Whether the object of any of `keys` changed or was removed.
    public func hasObjectChange(
        forAnyKeys keys: some Sequence<String>, inCollection collection: String?, in changesets: [Changeset]
    ) -> Bool {
        keys.contains { hasObjectChange(forKey: $0, inCollection: collection, in: changesets) }
    }

    /// Whether the metadata of any of `keys` changed or was removed.
    public func hasMetadataChange(
        forAnyKeys keys: some Sequence<String>, inCollection collection: String?, in changesets: [Changeset]
    ) -> Bool {
        keys.contains { hasMetadataChange(forKey: $0, inCollection: collection, in: changesets) }
    }

    /// Whether anything in `collection` changed.
    public func hasChange(forCollection collection: String?, in changesets: [Changeset]) -> Bool {
        changesets.contains { $0.changes(collection: collection ?? "", object: true, metadata: true) }
    }

    /// Whether any object in `collection` changed or was removed.
    public func hasObjectChange(forCollection collection: String?, in changesets: [Changeset]) -> Bool {
        changesets.contains { $0.changes(collection: collection ?? "", object: true, metadata: false) }
    }

    /// Whether any metadata in `collection` changed or was removed.
    public func hasMetadataChange(forCollection collection: String?, in changesets: [Changeset]) -> Bool {
        changesets.contains { $0.changes(collection: collection ?? "", object: false, metadata: true) }
    }

    /// Whether `collection` was emptied (by removing the collection or everything).
    public func didClearCollection(_ collection: String?, in changesets: [Changeset]) -> Bool {
        changesets.contains { $0.clears(collection ?? "") }
    }

    /// Whether every collection was emptied.
    public func didClearAllCollections(in changesets: [Changeset]) -> Bool {
        changesets.contains { $0.allKeysRemoved || $0.isReset }
    }

    /// Calls `body` once with each changed key of `collection` (objects, metadata, removals).
    ///
    /// Keys of a cleared collection are not listed: check ``didClearCollection(_:in:)``.
    public func enumerateChangedKeys(
        inCollection collection: String?, in changesets: [Changeset],
        _ body: (_ key: String, _ stop: inout Bool) throws -> Void
    ) rethrows {
        let collection = collection ?? ""
        var seen = Set<String>()
        var stop = false
        for changeset in changesets {
            for ck in changeset.changedKeys where ck.collection == collection && seen.insert(ck.key).inserted {
                try body(ck.key, &stop)
                if stop { return }
            }
        }
    }

    /// Calls `body` once with each changed row in any collection (objects, metadata, removals).
    public func enumerateChangedCollectionKeys(
        in changesets: [Changeset], _ body: (_ collectionKey: CollectionKey, _ stop: inout Bool) throws -> Void
    ) rethrows {
        var seen = Set<CollectionKey>()
        var stop = false
        for changeset in changesets {
            for ck in changeset.changedKeys where seen.insert(ck).inserted {
                try body(ck, &stop)
                if stop { return }
            }
        }
    }
}

extension Changeset {
    /// Whether this changeset empties `collection` (or, being a reset, may have).
    func clears(_ collection: String) -> Bool {
        allKeysRemoved || isReset || removedCollections.contains(collection)
    }

    /// Whether the row's object (`object`) or metadata (`metadata`) changed, or the row went.
    func changes(_ ck: CollectionKey, object: Bool, metadata: Bool) -> Bool {
        (object && changesObject(ck)) || (metadata && changesMetadata(ck)) || removedKeys.contains(ck)
            || clears(ck.collection)
    }

    /// Whether an object (`object`) or metadata (`metadata`) in `collection` changed, or a row went.
    func changes(collection: String, object: Bool, metadata: Bool) -> Bool {
        clears(collection)
            || rows.changes.contains {
                $0.key.collection == collection
                    && ((object && $0.value.changesObject) || (metadata && $0.value.changesMetadata))
            }
            || removedKeys.contains { $0.collection == collection }
    }

    /// Object changes, metadata changes and removals, each once.
    var changedKeys: Set<CollectionKey> {
        objectChanges.union(metadataChanges).union(removedKeys)
    }
}
