/// A value a ``DatabaseQuery`` binds to one of its `?` placeholders: a single value, or a list
/// that expands the placeholder (`IN (?)` becomes `IN (?, ?, ?)`).
///
/// Every ``DatabaseValueConvertible`` is a single value; arrays and sets of them are lists.
public protocol DatabaseQueryArgument: Sendable {
    /// What the argument binds.
    var queryArgument: DatabaseQuery.Argument { get }
}

extension Array: DatabaseQueryArgument where Element: DatabaseValueConvertible {
    /// The elements, in order, as a list.
    public var queryArgument: DatabaseQuery.Argument { .list(map(\.databaseValue)) }
}

extension Set: DatabaseQueryArgument where Element: DatabaseValueConvertible {
    /// The elements, in the set's iteration order, as a list.
    public var queryArgument: DatabaseQuery.Argument { .list(map(\.databaseValue)) }
}

extension DatabaseQuery.Argument: DatabaseQueryArgument {
    /// The argument itself.
    public var queryArgument: DatabaseQuery.Argument { self }
}

extension DatabaseQueryArgument where Self == DatabaseQuery.Argument {
    /// A list of values of any mix of types, for one `IN (?)` placeholder.
    ///
    /// An array must hold one element type; write a list of several types in place:
    ///
    /// ```swift
    /// let query = try DatabaseQuery(format: "WHERE code IN (?) AND active = ?", .list(1, "x", 2.5), true)
    /// ```
    public static func list(_ values: any DatabaseValueConvertible...) -> DatabaseQuery.Argument {
        .list(values.map(\.databaseValue))
    }

    /// A list of values of any mix of types built at run time, for one `IN (?)` placeholder.
    ///
    /// ```swift
    /// let codes: [any DatabaseValueConvertible] = [1, "x", 2.5]
    /// let query = try DatabaseQuery(format: "WHERE code IN (?)", .list(contentsOf: codes))
    /// ```
    public static func list(contentsOf values: some Sequence<any DatabaseValueConvertible>) -> DatabaseQuery.Argument {
        .list(values.map(\.databaseValue))
    }
}
