package import CofferSQLite
public import Foundation

/// A database file opened directly through the SQLite layer, bypassing ``Coffer/Database``:
/// an independent view for checking what Coffer wrote (schema, pragmas, persisted snapshot)
/// and whether a key spec really opens the file.
///
/// Close Coffer's `Database` first, or read only: this handle takes no part in Coffer's locking.
public final class RawDatabaseFile {
    /// The underlying SQLite handle.
    package let handle: SQLiteConnection

    /// Opens `url` keyed with a raw key, or unkeyed when `key` is nil.
    ///
    /// The key is the raw key spec `x'<key><salt>'` (salt optional); the schema is read to
    /// validate it. With `create`, a missing file is
    /// created (for building files the way other tools would).
    /// - Throws: an error when the file cannot be opened or the key does not open it.
    public init(url: URL, rawKey key: Data?, salt: Data? = nil, pageSize: Int? = nil, create: Bool = false) throws {
        handle = try SQLiteConnection(path: url.path, create: create)
        if let key {
            let hex = (key + (salt ?? Data())).map { String(format: "%02x", $0) }.joined()
            try Array("x'\(hex)'".utf8).withUnsafeBytes { try handle.applyKey($0) }
            try handle.applyCipherSettings(pageSize: pageSize, kdfIterations: nil, useHMAC: nil)
        }
        try handle.validateReadable()
    }

    /// Opens `url` keyed with a passphrase (SQLCipher runs its PBKDF2).
    /// - Throws: an error when the file cannot be opened or the passphrase does not open it.
    public init(url: URL, passphrase: Data, kdfIterations: Int?, pageSize: Int? = nil) throws {
        handle = try SQLiteConnection(path: url.path, create: false)
        try passphrase.withUnsafeBytes { try handle.applyKey($0) }
        try handle.applyCipherSettings(pageSize: pageSize, kdfIterations: kdfIterations, useHMAC: nil)
        try handle.validateReadable()
    }

    /// Runs SQL statements that return nothing.
    /// - Throws: an error when a statement fails.
    public func execute(_ sql: String) throws {
        try handle.execute(sql)
    }

    /// The first column of the first row of `sql`, as an integer.
    /// - Throws: an error when the query fails.
    public func int(_ sql: String) throws -> Int64? {
        try handle.scalarInt(sql)
    }

    /// The first column of the first row of `sql`, as text.
    /// - Throws: an error when the query fails.
    public func text(_ sql: String) throws -> String? {
        try handle.scalarText(sql)
    }

    /// Column `column` of every row of `sql`, as text.
    /// - Throws: an error when the query fails.
    public func texts(_ sql: String, column: Int32 = 0) throws -> [String] {
        let stmt = try handle.prepare(sql)
        var rows: [String] = []
        while try stmt.step() { rows.append(stmt.text(column)) }
        return rows
    }
}
