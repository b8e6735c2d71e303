import CofferSQLite

extension DatabaseError {
    /// Maps a SQLite-layer error to the public error, keeping SQLite's message and the SQL text.
    init(_ error: SQLiteError, collection: String? = nil, key: String? = nil) {
        typealias RC = SQLiteError.ResultCode
        let code: Code
        switch error.code {
        case RC.busy, RC.locked: code = .busy
        case RC.readonly, RC.perm: code = .readOnly
        case RC.corrupt: code = .corrupt
        case RC.ioerr, RC.full, RC.cantopen: code = .io
        case RC.notadb: code = .notADatabase
        case RC.misuse: code = .misuse
        case RC.interrupt: code = .cancelled
        default: code = .sqlite
        }
        var message = error.message
        if let sql = error.sql { message += " — while executing `\(sql)`" }
        self.init(
            code, message, path: error.path, collection: collection, key: key, sqliteCode: error.code,
            underlying: error)
    }
}

/// Runs `body`, turning any SQLite-layer error into a ``DatabaseError``.
@inline(__always)
func mapSQLite<T>(collection: String? = nil, key: String? = nil, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SQLiteError {
        throw DatabaseError(error, collection: collection, key: key)
    }
}
