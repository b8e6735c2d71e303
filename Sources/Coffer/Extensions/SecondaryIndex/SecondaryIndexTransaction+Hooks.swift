import CofferSQLite

/// Keeping the index exact: every write hook, population, and table management.
extension SecondaryIndexTransaction: ExtensionTransaction {
    func createTables() throws {
        try index.setup.validate()
        let write = try activeWriteTransaction()
        let recorded = try write.yapString(extension: registeredName, key: SecondaryIndexSQL.setupKey)
        if let recorded, recorded != sql.create {
            // The setup changed under the same versionTag: the old table cannot hold the new columns.
            try execute(sql.drop)
            try execute(sql.create)
            try populate()
        } else {
            try execute(sql.create)
        }
        if recorded != sql.create {
            try write.setYapValue(.text(sql.create), extension: registeredName, key: SecondaryIndexSQL.setupKey)
        }
    }

    func populate() throws {
        try guarded {
            let write = try activeWriteTransaction()
            try execute(sql.deleteAll)
            let handler = index.handler
            try write.enumerateRowsForExtension(
                allowedCollections: index.allowedCollections, object: handler.readsObject,
                metadata: handler.readsMetadata
            ) { row in try reindex(row) }
        }
    }

    func dropTables() throws {
        try execute(sql.drop)
    }

    func didInsert(_ row: ExtensionRow) throws { try update(row, .insert) }
    func didUpdate(_ row: ExtensionRow) throws { try update(row, .update) }
    func didReplaceObject(_ row: ExtensionRow) throws { try update(row, .replaceObject) }
    func didReplaceMetadata(_ row: ExtensionRow) throws { try update(row, .replaceMetadata) }

    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        try update(row, .touch(object: object, metadata: metadata))
    }

    func didRemove(_ ck: CollectionKey, rowid: Int64) throws {
        guard index.allowedCollections.isAllowed(ck.collection) else { return }
        try guarded { try run(sql.deleteRowid, [.integer(rowid)]) }
    }

    func willRemoveAll(inCollection collection: String) throws {
        guard index.allowedCollections.isAllowed(collection) else { return }
        // Before the rows go: their rowids are found through database2.
        try guarded { try run(sql.deleteCollection, [.text(collection)]) }
    }

    func didRemoveAllCollections() throws {
        try guarded { try run(sql.deleteAll, []) }
    }

    private func update(_ row: ExtensionRow, _ change: RowHandlerChange) throws {
        guard index.allowedCollections.isAllowed(row.collectionKey.collection), index.handler.runs(on: change) else {
            return
        }
        try guarded { try reindex(row) }
    }

    /// Runs `body`; when it fails the whole write transaction is marked rolled back, so a caller
    /// that catches the error cannot commit rows whose index entries are missing.
    func guarded(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            (transaction as? ReadWriteTransaction)?.rollback()
            throw error
        }
    }
}
