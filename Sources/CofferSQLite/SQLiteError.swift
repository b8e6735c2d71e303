/// A failed SQLite call: its result code, SQLite's message, the SQL and the file involved.
///
/// Bound values never appear here, so an error can be logged without leaking stored data
/// or key material.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_NOTADB`, …).
    package var code: Int32
    /// The extended result code, when SQLite gave one.
    package var extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`), read at once after the failing call.
    package var message: String
    /// The SQL statement that failed, if any.
    package var sql: String?
    /// The database file the connection was opened on.
    package var path: String

    package init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, path: String) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.path = path
    }

    package var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += " (extended \(extendedCode))" }
        text += ": \(message) — file \(path)"
        if let sql { text += " — while executing `\(sql)`" }
        return text
    }
}

extension SQLiteError {
    /// SQLite result codes Coffer reacts to; values from sqlite3.h, stable across versions.
    package enum ResultCode {
        package static let ok: Int32 = 0
        package static let error: Int32 = 1
        package static let perm: Int32 = 3
        package static let abort: Int32 = 4
        package static let busy: Int32 = 5
        package static let locked: Int32 = 6
        package static let nomem: Int32 = 7
        package static let readonly: Int32 = 8
        package static let interrupt: Int32 = 9
        package static let ioerr: Int32 = 10
        package static let corrupt: Int32 = 11
        package static let full: Int32 = 13
        package static let cantopen: Int32 = 14
        package static let constraint: Int32 = 19
        package static let misuse: Int32 = 21
        package static let auth: Int32 = 23
        package static let notadb: Int32 = 26
        package static let row: Int32 = 100
        package static let done: Int32 = 101
    }

    /// Whether the failure means "wrong key, or not a database at all".
    package var isNotADatabase: Bool { code == ResultCode.notadb }
    /// Whether an authorizer refused the statement (see `SQLiteConnection.prepare(_:authorizer:)`).
    package var isNotAuthorized: Bool { code == ResultCode.auth }
}
