import CofferSQLite
import Foundation

/// Removing and touching rows.
extension ReadWriteTransaction {
    /// Removes the row for `key` in `collection`; does nothing when it does not exist.
    /// - Throws: any ``DatabaseError`` from writing.
    public func removeObject(forKey key: String, inCollection collection: String?) throws {
        try checkWritable()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard let rowid = try existingRowid(ck) else { return }
        let hooks = hookReceivers
        try runHooks(hooks) { hook in try hook.willRemove(ck, rowid: rowid) }
        try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try core.sqlite.cachedStatement(SQL.deleteRowid)
            try stmt.bind(rowid, at: 1)
            try stmt.run()
        }
        noteRemoved(ck)
        try runHooks(hooks) { hook in try hook.didRemove(ck, rowid: rowid) }
    }

    /// Removes the rows for `keys` in `collection`; keys without a row are ignored.
    /// - Complexity: one query per 500 keys.
    /// - Throws: any ``DatabaseError`` from writing.
    public func removeObjects(forKeys keys: [String], inCollection collection: String?) throws {
        try checkWritable()
        if !extensionEntries.isEmpty {
            // Extensions need every row's rowid and their hooks per row.
            for key in keys { try removeObject(forKey: key, inCollection: collection) }
            return
        }
        let collection = collection ?? ""
        var start = 0
        while start < keys.count {
            let batch = keys[start..<min(start + Self.keyBatchSize, keys.count)]
            start += batch.count
            let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            let existing = try mapSQLite(collection: collection) { () throws -> [String] in
                let select = try core.sqlite.cachedStatement(
                    #"SELECT "key" FROM "database2" WHERE "collection" = ? AND "key" IN ("# + placeholders + ")")
                defer { select.reset() }
                try select.bind(collection, at: 1)
                for (offset, key) in batch.enumerated() { try select.bind(key, at: Int32(offset + 2)) }
                var found: [String] = []
                while try select.step() { found.append(select.text(0)) }
                guard !found.isEmpty else { return [] }
                let delete = try core.sqlite.cachedStatement(
                    #"DELETE FROM "database2" WHERE "collection" = ? AND "key" IN ("# + placeholders + ")")
                try delete.bind(collection, at: 1)
                for (offset, key) in batch.enumerated() { try delete.bind(key, at: Int32(offset + 2)) }
                try delete.run()
                return found
            }
            for key in existing { noteRemoved(CollectionKey(collection: collection, key: key)) }
        }
    }

    /// Removes every row of `collection`.
    /// - Complexity: O(rows in the collection).
    /// - Throws: any ``DatabaseError`` from writing.
    public func removeAllObjects(inCollection collection: String?) throws {
        try checkWritable()
        let collection = collection ?? ""
        let hooks = hookReceivers
        try runHooks(hooks) { hook in try hook.willRemoveAll(inCollection: collection) }
        let removed = try mapSQLite(collection: collection) { () throws -> Int in
            let stmt = try core.sqlite.cachedStatement(SQL.deleteCollection)
            try stmt.bind(collection, at: 1)
            try stmt.run()
            return core.sqlite.changes
        }
        core.objectCache.removeAll { ck, _ in ck.collection == collection }
        core.metadataCache.removeAll { ck, _ in ck.collection == collection }
        try runHooks(hooks) { hook in try hook.didRemoveAll(inCollection: collection) }
        guard removed > 0 || changes.insertedRows(in: collection) else { return }
        core.mutationCount &+= 1
        changes.noteRemovedCollection(collection)
    }

    /// Removes every row of every collection.
    /// - Complexity: O(rows).
    /// - Throws: any ``DatabaseError`` from writing.
    public func removeAllObjectsInAllCollections() throws {
        try checkWritable()
        let hooks = hookReceivers
        try runHooks(hooks) { hook in try hook.willRemoveAllCollections() }
        let removed = try mapSQLite { () throws -> Int in
            try core.sqlite.cachedStatement(SQL.deleteAll).run()
            return core.sqlite.changes
        }
        core.flushCaches()
        try runHooks(hooks) { hook in try hook.didRemoveAllCollections() }
        guard removed > 0 || changes.hasInsertedRows else { return }
        core.mutationCount &+= 1
        changes.noteRemovedAll()
    }

    /// Marks the row's object as changed without writing it: siblings keep their cached value and observers see the
    /// key in ``Changeset/objectChanges``.
    ///
    /// Does nothing for a missing row.
    public func touchObject(forKey key: String, inCollection collection: String?) throws {
        try touch(key, collection, object: true, metadata: false)
    }

    /// Marks the row's metadata as changed without writing it.
    ///
    /// Does nothing for a missing row.
    public func touchMetadata(forKey key: String, inCollection collection: String?) throws {
        try touch(key, collection, object: false, metadata: true)
    }

    /// Marks the row's object and metadata as changed without writing them.
    public func touchRow(forKey key: String, inCollection collection: String?) throws {
        try touch(key, collection, object: true, metadata: true)
    }

    private func touch(_ key: String, _ collection: String?, object: Bool, metadata: Bool) throws {
        try checkWritable()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard let rowid = try existingRowid(ck) else { return }
        changes.updateRow(ck) { Self.touch(&$0, object: object, metadata: metadata) }
        let hooks = hookReceivers
        guard !hooks.isEmpty else { return }
        let row = ExtensionRow(
            collectionKey: ck, rowid: rowid,
            object: lazyObject(ck),
            metadata: lazyMetadata(ck))
        try runHooks(hooks) { hook in try hook.didTouch(row, object: object, metadata: metadata) }
    }

    private func noteRemoved(_ ck: CollectionKey) {
        core.mutationCount &+= 1
        core.objectCache.removeValue(forKey: ck)
        core.metadataCache.removeValue(forKey: ck)
        changes.noteRemoved(ck)
    }

    /// Marks a touch without overriding a real change made earlier in the transaction.
    private static func touch(_ change: inout RowChange, object: Bool, metadata: Bool) {
        if object && !change.changesObject { change.object = .touch }
        if metadata && !change.changesMetadata { change.metadata = .touch }
    }
}
