extension DatabaseError.Code {
    /// A query is malformed: a bad ``DatabaseQuery`` format or arguments, a full-text search
    /// expression SQLite cannot parse, an unknown column, or SQL that does not compile.
    public static let invalidQuery = DatabaseError.Code(rawValue: "invalidQuery")
}

extension DatabaseError {
    /// An `.invalidQuery` error with `message`.
    static func invalidQuery(_ message: String) -> DatabaseError {
        DatabaseError(.invalidQuery, message)
    }
}
