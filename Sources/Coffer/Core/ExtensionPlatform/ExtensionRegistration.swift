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
    private let memoryTables = Locked<[String: any Sendable]>([:])

    init(name: String, tableNames: [String], dependencyTableNames: [String], id: UInt64) {
        self.name = name
        self.tableNames = tableNames
        self.dependencyTableNames = dependencyTableNames
        self.id = id
    }

    /// The key of this registration's statements in a connection's statement cache.
    var scope: String { "\(name)#\(id)" }
}
