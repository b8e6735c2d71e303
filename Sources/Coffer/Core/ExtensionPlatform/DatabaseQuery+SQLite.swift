import CofferSQLite

/// Running a query: the extension's head plus the query's tail, every value bound.
extension DatabaseQuery {
    /// Prepares `head` followed by the query's SQL and binds its values.
    /// - Throws: ``DatabaseError`` `.invalidQuery` when the SQL does not compile (unknown column,
    ///   syntax error, too many values) or its parameters do not match the bindings.
    func prepare(head: String, on sqlite: SQLiteConnection) throws -> Statement {
        let text = sql.isEmpty ? head : head + " " + sql
        return try mapQuerySQLite {
            let stmt = try sqlite.prepare(text)
            guard Int(stmt.parameterCount) == bindings.count else {
                throw DatabaseError.invalidQuery(
                    "the query SQL has \(stmt.parameterCount) parameter(s) but binds \(bindings.count) value(s)")
            }
            for (offset, value) in bindings.enumerated() {
                try stmt.bind(value: value.sqliteValue, at: Int32(offset + 1))
            }
            return stmt
        }
    }
}

/// Runs `body`, turning SQLite errors into ``DatabaseError``s; a generic SQL error (a syntax
/// error, an unknown column, a malformed full-text expression) becomes `.invalidQuery`.
func mapQuerySQLite<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SQLiteError {
        var mapped = DatabaseError(error)
        if error.code == SQLiteError.ResultCode.error { mapped.code = .invalidQuery }
        throw mapped
    }
}

extension DatabaseValue {
    /// The SQLite layer's form of the value.
    var sqliteValue: SQLiteValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .blob(let value): .blob(value)
        }
    }

    /// The public form of a value read from SQLite.
    init(_ value: SQLiteValue) {
        switch value {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        }
    }
}
