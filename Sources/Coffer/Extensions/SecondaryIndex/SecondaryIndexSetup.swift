/// The typed columns of a ``SecondaryIndex`` (YapDatabase's `YapDatabaseSecondaryIndexSetup`).
///
/// Each column becomes a column of the index table `secondaryIndex_<name>` with that SQLite type
/// affinity, and gets its own SQL index, so queries on any column are fast.
///
/// ```swift
/// let setup = SecondaryIndexSetup([("department", .text), ("salary", .integer), ("hired", .real)])
/// ```
public struct SecondaryIndexSetup: Sendable, Hashable {
    /// A column's SQLite type affinity.
    public enum ColumnType: String, Sendable, Hashable, CaseIterable {
        /// Whole numbers (and `Bool` as 0/1).
        case integer = "INTEGER"
        /// Floating-point numbers, and `Date`s as seconds since the reference date.
        case real = "REAL"
        /// Numbers stored as integers when they are whole, reals otherwise.
        case numeric = "NUMERIC"
        /// Text.
        case text = "TEXT"
        /// Bytes.
        case blob = "BLOB"
    }

    /// One column: its name (a plain identifier) and type.
    public struct Column: Sendable, Hashable {
        /// The column name: letters, digits and `_`, not starting with a digit; not `rowid`.
        public let name: String
        /// The column's type affinity.
        public let type: ColumnType

        /// Creates a column.
        public init(_ name: String, _ type: ColumnType) {
            self.name = name
            self.type = type
        }
    }

    /// The columns, in order.
    public private(set) var columns: [Column]

    /// An empty setup; add columns with ``addColumn(_:type:)``.
    public init() {
        columns = []
    }

    /// A setup with the given columns, in order.
    public init(_ columns: [Column]) {
        self.columns = columns
    }

    /// A setup with the given `(name, type)` pairs, in order.
    public init(_ columns: [(String, ColumnType)]) {
        self.columns = columns.map { Column($0.0, $0.1) }
    }

    /// Appends a column; names are checked when the index is registered.
    public mutating func addColumn(_ name: String, type: ColumnType) {
        columns.append(Column(name, type))
    }

    /// The column named `name`, if any.
    public func column(named name: String) -> Column? {
        columns.first { $0.name == name }
    }

    /// Checks the names: at least one column, plain identifiers, unique, no rowid alias.
    /// - Throws: ``DatabaseError`` `.extensionFailure`.
    func validate() throws {
        try ExtensionSQL.validateColumnNames(
            columns.map(\.name), reserved: ["rowid", "oid", "_rowid_"], owner: "the secondary index")
    }
}
