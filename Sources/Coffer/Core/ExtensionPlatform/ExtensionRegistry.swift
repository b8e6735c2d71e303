import Foundation

/// The extensions registered with a database, in registration order (hooks run in this order).
struct ExtensionRegistry {
    struct Entry {
        let name: String
        let implementation: any ExtensionImplementation
        /// Tells this registration from an earlier one under the same name, whose per-connection
        /// states (configuration, prepared SQL) other connections may still hold.
        let registration: UInt64
    }

    private(set) var entries: [Entry] = []
    private var lastRegistration: UInt64 = 0
    /// Names recorded in the file at open that were not registered again yet; dropped by the
    /// first write transaction that changes something.
    var orphanCandidates: Set<String> = []
    var orphansDropped = false

    func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// A new entry for `implementation` under `name`, not registered yet.
    mutating func makeEntry(name: String, implementation: any ExtensionImplementation) -> Entry {
        lastRegistration += 1
        return Entry(name: name, implementation: implementation, registration: lastRegistration)
    }

    mutating func add(_ entry: Entry) {
        entries.append(entry)
        orphanCandidates.remove(entry.name)
    }

    mutating func remove(named name: String) {
        entries.removeAll { $0.name == name }
    }
}

/// The `yap2` rows an extension keeps about itself (YapDatabase's layout, DESIGN.md §2).
enum ExtensionRecord {
    static let classKey = "class"
    static let classVersionKey = "classVersion"
    static let versionTagKey = "versionTag"
    /// JSON array of the tables the extension owns, so an orphan can be dropped without its type.
    static let tablesKey = "tables"
}
