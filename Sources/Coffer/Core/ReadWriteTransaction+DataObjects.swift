public import Foundation

/// Writes of `Data` objects: in a collection that stores `Data` as it is, the bytes go to the row
/// without being boxed into `any Sendable` and passed through the identity chain, which cost a bulk
/// write of `Data` several hundred instructions a row (BENCHMARKS.md, W1r).
extension ReadWriteTransaction {
    /// Stores the `Data` object `data` without metadata for `key` in `collection`, replacing any
    /// existing row (and its metadata): ``setObject(_:forKey:inCollection:withMetadata:)`` for a
    /// `Data` object and no metadata, with the same sanitizers, serialization, caches, hooks and
    /// errors.
    ///
    /// A write with metadata takes the general path: its metadata is serialized anyway. This
    /// overload has no metadata parameter, so a call builds and destroys no empty `any Sendable`.
    /// - Throws: ``DatabaseError`` `.serialization` when the object cannot be serialized (nothing
    ///   is written), or any ``DatabaseError`` from writing.
    public func setObject(_ data: Data, forKey key: String, inCollection collection: String?) throws {
        try checkWritable()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard configs.writesDataAsIs(ck.collection), hookReceivers(forCollection: ck.collection).isEmpty
        else {
            try setObject(
                data as any Sendable, forKey: key, inCollection: collection, withMetadata: nil,
                serializedObject: nil, serializedMetadata: nil)
            return
        }
        let inserted = try insertOrUpdate(ck, data: data, metadata: nil)
        core.mutationCount &+= 1
        changes.hasDiskChanges = true
        // What the general write leaves behind for such a row: the object cached, no metadata.
        if core.config.objectCacheEnabled { core.objectCache.setObject(data, forKey: ck) }
        if core.config.metadataCacheEnabled { core.metadataCache.setValue(nil, forKey: ck) }
        changes.recordEvictingWrite(ck, inserted: inserted)
    }
}
