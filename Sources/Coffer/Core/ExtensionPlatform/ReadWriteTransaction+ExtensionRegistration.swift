import CofferSQLite
import Foundation

/// The write-transaction side of registering, unregistering and dropping extensions.
extension ReadWriteTransaction {
    func installExtension(_ implementation: any DatabaseExtension, named name: String) throws {
        try checkWritable()
        let entry = try makeRegistryEntry(implementation, named: name)
        try dropOrphans(sharingTablesWith: entry)
        // Part of this transaction from now on: its flush, its changes and its commit run with it.
        extensionEntries.append(entry)
        keptHookReceivers = nil
        let extensionTx = makeExtensionTransaction(for: entry)
        if implementation.isPersistent {
            // What it derives from may have been rebuilt since (a view under a filtered view,
            // registered with a new tag): then its tables are stale too.
            let dependencyBuilds = try self.dependencyBuilds(of: implementation)
            let unchanged =
                try yapString(extension: name, key: ExtensionRecord.classKey) == implementation.kind
                && yapInt(extension: name, key: ExtensionRecord.classVersionKey) == Int64(implementation.classVersion)
                && yapString(extension: name, key: ExtensionRecord.versionTagKey) == implementation.versionTag
                && recordedTables(ofExtension: name) == entry.registration.tableNames
                && (yapString(extension: name, key: ExtensionRecord.dependencyBuildsKey) ?? "") == dependencyBuilds
            if unchanged {
                try extensionTx.createTables()
            } else {
                try dropRecordedTables(ofExtension: name)
                try setYapValue(.text(implementation.kind), extension: name, key: ExtensionRecord.classKey)
                try setYapValue(
                    .integer(Int64(implementation.classVersion)), extension: name, key: ExtensionRecord.classVersionKey)
                try setYapValue(.text(implementation.versionTag), extension: name, key: ExtensionRecord.versionTagKey)
                try setYapValue(.text(UUID().uuidString), extension: name, key: ExtensionRecord.buildKey)
                if dependencyBuilds.isEmpty {
                    try removeYapValue(extension: name, key: ExtensionRecord.dependencyBuildsKey)
                } else {
                    try setYapValue(.text(dependencyBuilds), extension: name, key: ExtensionRecord.dependencyBuildsKey)
                }
                let tables = try JSONEncoder().encode(entry.registration.tableNames)
                try setYapValue(
                    .text(String(decoding: tables, as: UTF8.self)), extension: name, key: ExtensionRecord.tablesKey)
                try extensionTx.createTables()
                try extensionTx.populate()
            }
        } else {
            // A persistent registration under this name left tables that would miss every write
            // from now on: registering it persistent again must rebuild, not reuse them.
            try dropRecordedTables(ofExtension: name)
            try extensionTx.populate()
        }
        // Registered while the write lock is still held, so no later write can miss its hooks.
        connection.database.extensions.withLock { $0.add(entry) }
        registeredExtensions.append(entry.registration)
    }

    /// A registration of `implementation` under `name`, not added to the registry yet.
    private func makeRegistryEntry(
        _ implementation: any DatabaseExtension, named name: String
    ) throws -> ExtensionRegistry.Entry {
        let database = connection.database
        let oldestSnapshot: @Sendable () -> UInt64 = { [weak database] in
            database?.state.withLock { $0.oldestConnectionSnapshot } ?? 0
        }
        return try database.extensions.withLock {
            try $0.makeEntry(name: name, implementation: implementation, oldestSnapshot: oldestSnapshot)
        }
    }

    /// Registers every non-persistent extension again, in place, and populates it from the rows:
    /// another process changed rows this process's memory cannot know of
    /// (``DatabaseOptions/multiProcessSupport``).
    ///
    /// Each gets a new registration (new memory tables, so readers at earlier snapshots keep the
    /// old contents); the commit lists them among ``Changeset/registeredExtensions``.
    func reinstallMemoryExtensions() throws {
        try checkWritable()
        for (index, old) in extensionEntries.enumerated() where !old.implementation.isPersistent {
            let entry = try makeRegistryEntry(old.implementation, named: old.name)
            extensionEntries[index] = entry
            keptHookReceivers = nil
            try makeExtensionTransaction(for: entry).populate()
            connection.database.extensions.withLock { $0.replace(entry) }
            registeredExtensions.append(entry.registration)
        }
    }

    /// The builds of `implementation`'s dependencies, as recorded for it: a persistent one's
    /// ``ExtensionRecord/buildKey``, a non-persistent one's registration build.
    private func dependencyBuilds(of implementation: any DatabaseExtension) throws -> String {
        var lines: [String] = []
        for name in implementation.dependencies.sorted() {
            guard let dependency = extensionEntries.first(where: { $0.name == name }) else { continue }
            let build =
                dependency.implementation.isPersistent
                ? try yapString(extension: name, key: ExtensionRecord.buildKey) ?? "-"
                : dependency.registration.memoryBuild
            lines.append("\(name)=\(build)")
        }
        return lines.joined(separator: "\n")
    }

    /// Drops the extensions recorded in the file but not registered again whose tables `entry`
    /// declares: the first changing write would drop those tables from under it otherwise.
    private func dropOrphans(sharingTablesWith entry: ExtensionRegistry.Entry) throws {
        let declared = ExtensionAccessPolicy.withShadows(entry.registration.tableNames)
        guard !declared.isEmpty else { return }
        let orphans = connection.database.extensions.withLock { $0.orphanCandidates }
        for orphan in orphans.sorted() where orphan != entry.name {
            let recorded = ExtensionAccessPolicy.withShadows(try recordedTables(ofExtension: orphan) ?? [])
            if !recorded.isDisjoint(with: declared) { try dropRecordedTables(ofExtension: orphan) }
        }
    }

    /// Unregisters `name` and every extension depending on it, dropping their tables.
    func uninstallExtension(named name: String) throws {
        try checkWritable()
        let names = connection.database.extensions.withLock { $0.withDependents(of: name) }
        for name in names {
            try dropRecordedTables(ofExtension: name)
            let removed = connection.database.extensions.withLock { registry -> (any DatabaseExtension)? in
                guard let entry = registry.entry(named: name) else { return nil }
                registry.remove(named: name)
                return entry.implementation
            }
            if let removed { unregisteredImplementations.append((name, removed)) }
            core.extensionStates[name] = nil
            extensionTransactions[name] = nil
            extensionEntries.removeAll { $0.name == name }
        }
        keptHookReceivers = nil
    }

    /// The tables `yap2` records for `name`, or nil without a record.
    func recordedTables(ofExtension name: String) throws -> [String]? {
        try yapString(extension: name, key: ExtensionRecord.tablesKey).flatMap {
            try? JSONDecoder().decode([String].self, from: Data($0.utf8))
        }
    }

    /// Drops the tables `yap2` records for `name` and forgets the extension's records.
    func dropRecordedTables(ofExtension name: String) throws {
        let tables = try recordedTables(ofExtension: name) ?? []
        try mapSQLite {
            for table in tables {
                try sqlite.execute("DROP TABLE IF EXISTS \(ExtensionSQL.quote(table))")
            }
        }
        if try yapString(extension: name, key: ExtensionRecord.classKey) != nil || !tables.isEmpty {
            try removeYapValues(extension: name)
        }
    }
}
