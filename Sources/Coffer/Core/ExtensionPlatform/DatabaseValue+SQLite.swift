import CofferSQLite

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
