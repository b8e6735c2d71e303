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
