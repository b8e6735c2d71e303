import CofferSQLite

/// Keeping the search table exact: every write hook, population, and table management.
extension FullTextSearchTransaction: ExtensionTransaction {
    func createTables() throws {
        try search.validate(registeredName: registeredName)
        let write = try activeWriteTransaction()
        let recorded = try write.yapString(extension: registeredName, key: FullTextSearchSQL.setupKey)
        if let recorded, recorded != sql.create {
            // The definition changed under the same versionTag: rebuild from every row.
            try execute(sql.drop)
            try createTable()
            try populate()
        } else {
            try createTable()
        }
        if recorded != sql.create {
            try write.setYapValue(.text(sql.create), extension: registeredName, key: FullTextSearchSQL.setupKey)
            try write.setYapValue(
                .text(search.version.rawValue), extension: registeredName, key: FullTextSearchSQL.versionKey)
        }
    }

    func populate() throws {
        try guarded {
            let write = try activeWriteTransaction()
            try execute(sql.deleteAll)
            let handler = search.handler
            try write.enumerateRowsForExtension(
                allowedCollections: search.allowedCollections, object: handler.readsObject,
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
        guard search.allowedCollections.isAllowed(ck.collection) else { return }
        try guarded { try run(sql.deleteRowid, [.integer(rowid)]) }
    }

    func willRemoveAll(inCollection collection: String) throws {
        guard search.allowedCollections.isAllowed(collection) else { return }
        // Before the rows go: their rowids are found through database2.
        try guarded { try run(sql.deleteCollection, [.text(collection)]) }
    }

    func didRemoveAllCollections() throws {
        try guarded { try run(sql.deleteAll, []) }
    }

    private func update(_ row: ExtensionRow, _ change: RowHandlerChange) throws {
        guard search.allowedCollections.isAllowed(row.collectionKey.collection), search.handler.runs(on: change) else {
            return
        }
        try guarded { try reindex(row) }
    }

    /// Creates the virtual table, telling a missing module apart from other failures.
    /// - Throws: ``DatabaseError`` `.unsupportedFeature` when SQLite lacks the module.
    private func createTable() throws {
        do {
            try sqlite.execute(sql.create)
        } catch let error as SQLiteError where error.message.contains("no such module") {
            throw DatabaseError(
                .unsupportedFeature,
                "the linked SQLite (\(SQLiteConnection.libraryVersion)) has no \(search.version.rawValue) module",
                underlying: error)
        } catch let error as SQLiteError {
            throw DatabaseError(error)
        }
    }

    private func execute(_ statement: String) throws {
        try mapSQLite { try sqlite.execute(statement) }
    }

    /// Runs `body`; when it fails the whole write transaction is marked rolled back, so a caller
    /// that catches the error cannot commit rows whose search text is missing.
    func guarded(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            (transaction as? ReadWriteTransaction)?.rollback()
            throw error
        }
    }
}
