import CofferSQLite
import Foundation

/// The write-transaction side of registering, unregistering and dropping extensions.
extension ReadWriteTransaction {
    func installExtension(_ implementation: any ExtensionImplementation, named name: String) throws {
        try checkWritable()
        let entry = connection.database.extensions.withLock {
            $0.makeEntry(name: name, implementation: implementation)
        }
        let state = core.extensionState(for: entry)
        let extensionTx = state.makeTransaction(ExtensionContext(transaction: self, registeredName: name))
        if implementation.isPersistent {
            let unchanged =
                try yapString(extension: name, key: ExtensionRecord.classKey) == implementation.kind
                && yapInt(extension: name, key: ExtensionRecord.classVersionKey) == Int64(implementation.classVersion)
                && yapString(extension: name, key: ExtensionRecord.versionTagKey) == implementation.versionTag
            if unchanged {
                try extensionTx.createTables()
            } else {
                try dropRecordedTables(ofExtension: name)
                try extensionTx.createTables()
                try extensionTx.populate()
                try extensionTx.flushPendingChanges()
                try setYapValue(.text(implementation.kind), extension: name, key: ExtensionRecord.classKey)
                try setYapValue(
                    .integer(Int64(implementation.classVersion)), extension: name, key: ExtensionRecord.classVersionKey)
                try setYapValue(.text(implementation.versionTag), extension: name, key: ExtensionRecord.versionTagKey)
                let tables = try JSONEncoder().encode(implementation.tableNames(registeredName: name))
                try setYapValue(
                    .text(String(decoding: tables, as: UTF8.self)), extension: name, key: ExtensionRecord.tablesKey)
            }
        } else {
            try extensionTx.populate()
        }
        // Registered while the write lock is still held, so no later write can miss its hooks.
        connection.database.extensions.withLock { $0.add(entry) }
    }

    func uninstallExtension(named name: String) throws {
        try checkWritable()
        try dropRecordedTables(ofExtension: name)
        connection.database.extensions.withLock { $0.remove(named: name) }
        core.extensionStates[name] = nil
    }

    /// Drops the tables `yap2` records for `name` and forgets the extension's records.
    func dropRecordedTables(ofExtension name: String) throws {
        let recorded = try yapString(extension: name, key: ExtensionRecord.tablesKey)
        let tables = recorded.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        try mapSQLite {
            for table in tables {
                try core.sqlite.execute(
                    "DROP TABLE IF EXISTS \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"")
            }
        }
        if try yapString(extension: name, key: ExtensionRecord.classKey) != nil || !tables.isEmpty {
            try removeYapValues(extension: name)
        }
    }
}
