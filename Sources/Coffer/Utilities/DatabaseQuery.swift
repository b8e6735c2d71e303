/// The tail of a SQL query — `WHERE …`, `ORDER BY …`, `LIMIT …` — with its arguments, passed
/// to extensions that answer queries (YapDatabase's `YapDatabaseQuery`).
///
/// The extension supplies the head (`SELECT "rowid" FROM "secondaryIndex_people"`) and appends
/// the format, so a query reads like the SQL it runs:
///
/// ```swift
/// let query = try DatabaseQuery(format: "WHERE department = ? AND salary >= ?", "eng", 100_000)
/// let teams = try DatabaseQuery(format: "WHERE department IN (?)", ["eng", "ops"])
/// ```
///
/// Values are never written into the SQL: every argument is bound to a `?` placeholder. An
/// array or set argument expands its placeholder into one `?` per element, so write it inside
/// parentheses (`IN (?)`); an empty list turns `(?)` into a subquery that returns no rows, so
/// `IN (?)` matches nothing and `NOT IN (?)` matches everything. SQLite 3.15 binds at most 999
/// values per statement.
///
/// A query is checked when it is made: the format may not contain `;` (one statement only),
/// numbered or named parameters (`?1`, `:name`), or an unterminated quote or comment, and the
/// number of `?` must equal the number of arguments. Column names and SQL errors are checked
/// when the query runs.
public struct DatabaseQuery: Sendable {
    /// What one argument binds.
    public enum Argument: Sendable, Hashable {
        /// One value for one `?`.
        case value(DatabaseValue)
        /// A list that expands its `?` into one placeholder per element.
        case list([DatabaseValue])
    }

    /// The format as given, with its `?` placeholders.
    public let format: String
    /// The SQL the extension appends: the format with list placeholders expanded.
    public let sql: String
    /// The values bound to the placeholders of ``sql``, in order.
    let bindings: [DatabaseValue]
    /// The aggregate expression (`SUM(salary)`) of an aggregate query, nil otherwise.
    public let aggregateFunction: String?

    /// Creates a query from a format with `?` placeholders and one argument per placeholder.
    /// - Throws: ``DatabaseError`` `.invalidQuery` when the format contains `;`, a numbered or named
    ///   parameter or an unterminated quote or comment, when the argument count differs from the
    ///   placeholder count, or when an empty list is bound to a `?` not written as `(?)`.
    public init(format: String, arguments: [any DatabaseQueryArgument]) throws {
        let expanded = try Self.expand(format, arguments.map(\.queryArgument))
        self.init(format: format, sql: expanded.sql, bindings: expanded.bindings, aggregateFunction: nil)
    }

    /// Creates a query from a format with `?` placeholders and one argument per placeholder.
    /// - Throws: ``DatabaseError`` `.invalidQuery` as ``init(format:arguments:)`` does.
    public init(format: String, _ arguments: any DatabaseQueryArgument...) throws {
        try self.init(format: format, arguments: arguments)
    }

    init(format: String, sql: String, bindings: [DatabaseValue], aggregateFunction: String?) {
        self.format = format
        self.sql = sql
        self.bindings = bindings
        self.aggregateFunction = aggregateFunction
    }

    /// A query that matches every row (an empty tail).
    public static let matchingAll = DatabaseQuery(format: "", sql: "", bindings: [], aggregateFunction: nil)

    /// An aggregate query: `function` (for example `SUM(salary)`, `AVG(age)`, `MAX(hired)`) over
    /// the rows the format selects.
    ///
    /// ```swift
    /// let payroll = try DatabaseQuery.aggregate("SUM(salary)", format: "WHERE department = ?", "eng")
    /// ```
    /// - Throws: ``DatabaseError`` `.invalidQuery` when `function` is empty or contains `;`, a
    ///   placeholder, or an unterminated quote, or for the reasons ``init(format:arguments:)`` gives.
    public static func aggregate(
        _ function: String, format: String, arguments: [any DatabaseQueryArgument]
    ) throws -> DatabaseQuery {
        try validateAggregate(function)
        let expanded = try expand(format, arguments.map(\.queryArgument))
        return DatabaseQuery(
            format: format, sql: expanded.sql, bindings: expanded.bindings, aggregateFunction: function)
    }

    /// An aggregate query with variadic arguments; see ``aggregate(_:format:arguments:)``.
    /// - Throws: ``DatabaseError`` `.invalidQuery` as ``aggregate(_:format:arguments:)`` does.
    public static func aggregate(
        _ function: String, format: String = "", _ arguments: any DatabaseQueryArgument...
    ) throws -> DatabaseQuery {
        try aggregate(function, format: format, arguments: arguments)
    }

    /// The number of values the query binds (after list expansion).
    public var bindingCount: Int { bindings.count }
    /// The values bound to the SQL's parameters, in order.
    public var arguments: [DatabaseValue] { bindings }
}

extension DatabaseQuery: CustomStringConvertible {
    /// The SQL and how many values it binds; never the values, which may be secrets.
    public var description: String {
        var text = "DatabaseQuery(\"\(sql)\", \(bindings.count) bound value\(bindings.count == 1 ? "" : "s")"
        if let aggregateFunction { text += ", aggregate \(aggregateFunction)" }
        return text + ")"
    }
}
