/// A secondary index: SQL-queryable columns derived from rows, kept exact inside every write
/// transaction (YapDatabase's `YapDatabaseSecondaryIndex`).
///
/// A handler fills the column values for each row; the index lives in the table
/// `secondaryIndex_<name>` (its `rowid` is the row's rowid in `database2`, one column per setup
/// column, and an SQL index per column), and is queried with ``DatabaseQuery``:
///
/// ```swift
/// let index = SecondaryIndex(
///     setup: SecondaryIndexSetup([("department", .text), ("salary", .integer)]),
///     handler: .object(Employee.self) { row, values in
///         values["department"] = row.object.department
///         values["salary"] = row.object.salary
///     },
///     versionTag: "1", allowedCollections: .only(["employees"]))
/// try database.register(index, withName: "staff")
///
/// try connection.read { tx in
///     let query = try DatabaseQuery(format: "WHERE department = ? AND salary >= ?", "eng", 100_000)
///     try tx.secondaryIndex("staff")?.enumerateKeys(matching: query) { collection, key, stop in … }
/// }
/// ```
///
/// Values: integers, floating-point numbers, `Bool` (0/1), `String`, `Data`, and `Date` — stored as
/// a real number of seconds since the reference date (1 January 2001 UTC), as YapDatabase does,
/// so query dates with a `Date` argument. A column the handler does not set is `NULL`; a handler
/// that sets no column gives the row no entry (and removes an existing one).
///
/// Changing the setup, the handler's logic or ``allowedCollections`` needs a new ``versionTag``
/// to rebuild the index from every row (a changed setup is detected and rebuilt even without one).
public struct SecondaryIndex: DatabaseExtension {
    /// The columns.
    public let setup: SecondaryIndexSetup
    /// The closure that fills the column values for a row.
    public let handler: SecondaryIndexHandler
    /// A caller-chosen version: registering with a different tag rebuilds the index.
    public let versionTag: String
    /// The collections whose rows are indexed; rows elsewhere are never passed to the handler.
    public let allowedCollections: AllowList<String>

    /// Creates a secondary index configuration (registration checks the setup).
    public init(
        setup: SecondaryIndexSetup, handler: SecondaryIndexHandler, versionTag: String = "",
        allowedCollections: AllowList<String> = .all
    ) {
        self.setup = setup
        self.handler = handler
        self.versionTag = versionTag
        self.allowedCollections = allowedCollections
    }

    /// The name of the index table for an extension registered as `registeredName`.
    public static func tableName(registeredName: String) -> String {
        "secondaryIndex_" + registeredName
    }
}

/// The handler of a ``SecondaryIndex``: fills `values[column] = value` for the setup's columns.
public typealias SecondaryIndexHandler = RowHandler<[String: any DatabaseValueConvertible]>

extension SecondaryIndex {
    /// "SecondaryIndex", as YapDatabase records it.
    public var kind: String { "SecondaryIndex" }

    /// The table `secondaryIndex_<name>`.
    public func tableNames(registeredName: String) -> [String] {
        [Self.tableName(registeredName: registeredName)]
    }

    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// The index's SQL for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        let sql = SecondaryIndexSQL(registeredName: registration.name, setup: setup)
        return StatelessConnectionState { DerivedTableMaintainer(SecondaryIndexTransaction(context: $0, index: self, sql: sql)) }
    }
}
