import Foundation
import Synchronization

/// One registration of an extension: its name, its tables, and what its connections share.
///
/// Every connection's state for the same registration gets the same object; registering again
/// under the same name (after unregistering) makes a new one, so nothing leaks from an earlier
/// configuration.
public final class ExtensionRegistration: Sendable {
    /// The name the extension is registered under.
    public let name: String
    /// The tables the extension owns (``DatabaseExtension/tableNames(registeredName:)``).
    public let tableNames: [String]
    /// The tables of the extensions this one depends on, which its statements may read.
    public let dependencyTableNames: [String]
    /// Tells this registration from an earlier one under the same name.
    let id: UInt64
    /// The build of a non-persistent registration, new at every registration: a persistent
    /// extension built over it is rebuilt at its next registration.
    let memoryBuild = UUID().uuidString
    /// The snapshot the registration's commit publishes: readers pinned before it do not see it.
    let firstSnapshot = Atomic<UInt64>(.max)
    /// Memory tables and shared values, by name.
    private let sharedValues = Locked<[String: any Sendable]>([:])
    /// The oldest snapshot a connection of the database may still read at.
    private let oldestSnapshot: @Sendable () -> UInt64

    init(
        name: String, tableNames: [String], dependencyTableNames: [String], id: UInt64,
        oldestSnapshot: @escaping @Sendable () -> UInt64
    ) {
        self.name = name
        self.tableNames = tableNames
        self.dependencyTableNames = dependencyTableNames
        self.id = id
        self.oldestSnapshot = oldestSnapshot
    }

    /// The in-memory table `name` of this registration, shared by every connection: where a
    /// non-persistent extension keeps what it derives.
    ///
    /// Made empty on first use; registering the extension again makes new ones. Reach its
    /// contents as a transaction sees them through ``ExtensionContext/readView(of:)`` and
    /// ``ExtensionContext/writeView(of:)``, which keep every connection's snapshot readable and
    /// commit the changes with the transaction.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when `name` was first made with other types.
    public func memoryTable<Key: Hashable & Sendable, Value: Sendable>(
        named name: String, keyType: Key.Type = Key.self, valueType: Value.Type = Value.self
    ) throws -> MemoryTable<Key, Value> {
        let found = sharedValues.withLock { tables -> (any Sendable)? in
            if let existing = tables[name] { return existing }
            let table = MemoryTable<Key, Value>(retentionFloor: oldestSnapshot)
            tables[name] = table
            return table
        }
        guard let table = found as? MemoryTable<Key, Value> else {
            throw DatabaseError(
                .extensionFailure,
                "extension \"\(self.name)\" made memory table \"\(name)\" with other types than \(Key.self) → \(Value.self)"
            )
        }
        return table
    }

    /// The value every connection of this registration shares under `name`, made by `make` on
    /// first use: for example an extension's configuration that a transaction can change (a
    /// view's grouping), which connections made later must start from.
    ///
    /// Registering the extension again makes new ones. The value must do its own locking if it
    /// changes.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when `name` was first made with another type.
    public func sharedValue<T: Sendable>(named name: String, make: () -> T) throws -> T {
        let found = sharedValues.withLock { values -> any Sendable in
            let key = "shared:" + name
            if let existing = values[key] { return existing }
            let value = make()
            values[key] = value
            return value
        }
        guard let value = found as? T else {
            throw DatabaseError(
                .extensionFailure,
                "extension \"\(self.name)\" made shared value \"\(name)\" with another type than \(T.self)")
        }
        return value
    }

    /// The key of this registration's statements in a connection's statement cache.
    var scope: String { "\(name)#\(id)" }
}
