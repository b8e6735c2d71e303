import Foundation

/// The extensions registered with a database, in registration order (hooks run in this order).
///
/// A dependency is always registered before its dependents, so registration order is also
/// dependency order.
struct ExtensionRegistry {
    struct Entry {
        let name: String
        let implementation: any DatabaseExtension
        /// This registration (per-connection states made for an earlier one are replaced).
        let registration: ExtensionRegistration
        /// The implementation's ``DatabaseExtension/derivedCollections``, read once: every write
        /// asks it which extensions to tell.
        let derivedCollections: AllowList<String>?
    }

    private(set) var entries: [Entry] = []
    private var lastRegistration: UInt64 = 0
    /// Names recorded in the file at open that were not registered again yet; dropped by the
    /// first write transaction that changes something.
    var orphanCandidates: Set<String> = []

    func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// A new entry for `implementation` under `name`, not registered yet.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when a dependency is missing or a table
    ///   name is taken by a registered extension or by the core.
    mutating func makeEntry(
        name: String, implementation: any DatabaseExtension, oldestSnapshot: @escaping @Sendable () -> UInt64
    ) throws -> Entry {
        var dependencyTables: [String] = []
        for dependency in implementation.dependencies.sorted() {
            guard let entry = entry(named: dependency) else {
                throw DatabaseError(
                    .extensionFailure,
                    "extension \"\(name)\" depends on \"\(dependency)\", which is not registered; register it first")
            }
            dependencyTables += entry.registration.tableNames
        }
        let tables = implementation.tableNames(registeredName: name)
        let taken = ExtensionAccessPolicy.withShadows(entries.flatMap(\.registration.tableNames))
        for table in tables {
            let names = ExtensionAccessPolicy.withShadows([table])
            let folded = table.lowercased()
            guard ExtensionSQL.isPlainIdentifier(table), !folded.hasPrefix("sqlite_"),
                !["database2", "yap2"].contains(folded)
            else {
                throw DatabaseError(.extensionFailure, "extension \"\(name)\" cannot own a table named \"\(table)\"")
            }
            guard taken.isDisjoint(with: names) else {
                throw DatabaseError(
                    .extensionFailure, "extension \"\(name)\" declares table \"\(table)\", which another extension owns"
                )
            }
        }
        lastRegistration += 1
        let registration = ExtensionRegistration(
            name: name, tableNames: tables, dependencyTableNames: dependencyTables, id: lastRegistration,
            oldestSnapshot: oldestSnapshot)
        return Entry(
            name: name, implementation: implementation, registration: registration,
            derivedCollections: implementation.derivedCollections)
    }

    mutating func add(_ entry: Entry) {
        entries.append(entry)
        orphanCandidates.remove(entry.name)
    }

    /// Puts `entry` in the place of the registered entry of the same name (hooks keep their order).
    mutating func replace(_ entry: Entry) {
        guard let index = entries.firstIndex(where: { $0.name == entry.name }) else { return }
        entries[index] = entry
    }

    mutating func remove(named name: String) {
        entries.removeAll { $0.name == name }
    }

    /// `name` and every registered extension that depends on it, directly or not, dependents
    /// first (the order to unregister them in).
    func withDependents(of name: String) -> [String] {
        var names: Set<String> = [name]
        for entry in entries where !names.contains(entry.name) {
            if !entry.implementation.dependencies.isDisjoint(with: names) { names.insert(entry.name) }
        }
        return entries.map(\.name).filter(names.contains).reversed()
    }
}

/// The `yap2` rows an extension keeps about itself (YapDatabase's layout, DESIGN.md §2).
enum ExtensionRecord {
    static let classKey = "class"
    static let classVersionKey = "classVersion"
    static let versionTagKey = "versionTag"
    /// JSON array of the tables the extension owns, so an orphan can be dropped without its type.
    static let tablesKey = "tables"
    /// A fresh identifier written each time the extension is built, so that an extension
    /// depending on it can tell it was rebuilt since.
    static let buildKey = "build"
    /// The builds of the extension's dependencies it was built from (``buildKey``), as
    /// `name=build` lines; absent when it has none.
    static let dependencyBuildsKey = "dependencyBuilds"
    /// The keys the platform writes for every extension, which ``ExtensionTables/setRecord(_:forKey:)`` refuses.
    static let reservedKeys: Set<String> = [
        classKey, classVersionKey, versionTagKey, tablesKey, buildKey, dependencyBuildsKey,
    ]
}
