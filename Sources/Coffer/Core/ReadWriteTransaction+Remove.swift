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
        try removeRow(ck, rowid: rowid, hooks: hookReceivers(forCollection: ck.collection))
    }

    /// Removes the existing row `ck`, calling every extension's per-row hooks around it.
    private func removeRow(_ ck: CollectionKey, rowid: Int64, hooks: [any ExtensionTransaction]) throws {
        try runHooks(hooks) { hook in try hook.willRemove(ck, rowid: rowid) }
        try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try sqlite.cachedStatement(SQL.deleteRowid)
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
        let collection = collection ?? ""
        if !hookReceivers(forCollection: collection).isEmpty {
            // Extensions need every row's rowid and their hooks per row.
            for key in keys { try removeObject(forKey: key, inCollection: collection) }
            return
        }
        var start = 0
        while start < keys.count {
            let batch = keys[start..<min(start + Self.keyBatchSize, keys.count)]
            start += batch.count
            let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            let existing = try mapSQLite(collection: collection) { () throws -> [String] in
                let select = try sqlite.cachedStatement(
                    #"SELECT "key" FROM "database2" WHERE "collection" = ? AND "key" IN ("# + placeholders + ")")
                defer { select.reset() }
                try select.bind(collection, at: 1)
                for (offset, key) in batch.enumerated() { try select.bind(key, at: Int32(offset + 2)) }
                var found: [String] = []
                while try select.step() { found.append(select.text(0)) }
                guard !found.isEmpty else { return [] }
                let delete = try sqlite.cachedStatement(
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
    ///
    /// Extension hooks that act on each removed row (``Hooks``' `willRemove` and
    /// `didRemove`, for a collection they allow) run once per row, as in YapDatabase; without
    /// them the rows go in one statement.
    /// - Complexity: O(rows in the collection).
    /// - Throws: any ``DatabaseError`` from writing.
    public func removeAllObjects(inCollection collection: String?) throws {
        try checkWritable()
        let collection = collection ?? ""
        let hooks = hookReceivers(forCollection: collection)
        if hooks.contains(where: { $0.removesEachRow(ofCollection: collection) }) {
            try removeEachRow(ofCollection: collection, hooks: hooks)
            return
        }
        try runHooks(hooks) { hook in try hook.willRemoveAll(inCollection: collection) }
        let removed = try mapSQLite(collection: collection) { () throws -> Int in
            let stmt = try sqlite.cachedStatement(SQL.deleteCollection)
            try stmt.bind(collection, at: 1)
            try stmt.run()
            return sqlite.changes
        }
        core.objectCache.removeAll { ck, _ in ck.collection == collection }
        core.metadataCache.removeAll { ck, _ in ck.collection == collection }
        try runHooks(hooks) { hook in try hook.didRemoveAll(inCollection: collection) }
        guard removed > 0 || changes.insertedRows(in: collection) else { return }
        core.mutationCount &+= 1
        changes.noteRemovedCollection(collection)
    }

    /// Removes the rows `collection` holds now one by one, in batches, with the per-row hooks.
    ///
    /// Bounded by the highest rowid at the start, so a hook that inserts into the collection
    /// cannot keep the loop going; a row a hook removed or replaced meanwhile is skipped.
    private func removeEachRow(ofCollection collection: String, hooks: [any ExtensionTransaction]) throws {
        let last = try highestRowid(inCollection: collection)
        var after: Int64 = 0
        while after < last {
            var batch: [(rowid: Int64, key: String)] = []
            try mapSQLite(collection: collection) {
                let stmt = try sqlite.cachedStatement(SQL.rowidsAndKeysInCollection)
                defer { stmt.reset() }
                try stmt.bind(collection, at: 1)
                try stmt.bind(after, at: 2)
                try stmt.bind(last, at: 3)
                try stmt.bind(Int64(Self.keyBatchSize), at: 4)
                while try stmt.step() { batch.append((stmt.int64(0), stmt.text(1))) }
            }
            guard let end = batch.last?.rowid else { return }
            for row in batch {
                let ck = CollectionKey(collection: collection, key: row.key)
                guard try existingRowid(ck) == row.rowid else { continue }
                try removeRow(ck, rowid: row.rowid, hooks: hooks)
            }
            after = end
        }
    }

    /// Removes every row of every collection.
    /// - Complexity: O(rows).
    /// - Throws: any ``DatabaseError`` from writing.
    public func removeAllObjectsInAllCollections() throws {
        try checkWritable()
        let hooks = hookReceivers
        try runHooks(hooks) { hook in try hook.willRemoveAllCollections() }
        let removed = try mapSQLite { () throws -> Int in
            try sqlite.cachedStatement(SQL.deleteAll).run()
            return sqlite.changes
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
        let hooks = hookReceivers(forCollection: ck.collection)
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
