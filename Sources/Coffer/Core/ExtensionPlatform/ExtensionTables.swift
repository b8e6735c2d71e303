import CofferSQLite
public import Foundation

/// The SQL an extension may run: statements on its own tables only, checked by SQLite's
/// authorizer when they are prepared.
///
/// A statement may create, write, read and drop the tables the extension declared
/// (``DatabaseExtension/tableNames(registeredName:)``), the shadow tables a virtual-table module
/// makes for them (`<table>_content`, `<table>_node`, …) and indexes on them; it may read
/// `database2` (the rows) and the tables of the extensions it depends on. Anything else — the
/// core's tables, another extension's tables, triggers, views, pragmas, `ATTACH`, transaction
/// control, or any write in a read-only transaction — fails to prepare with `.extensionFailure`
/// naming what was refused, and nothing runs. Statements are cached per connection, apart from
/// the core's and from other extensions' (a connection keeps a few hundred; callers' queries vary).
///
/// The checks are a rail against mistakes, not a sandbox for untrusted code, which runs in the
/// same process anyway. SQLite 3.15.2 does not ask about a table a statement reads no column of,
/// so `SELECT count(*)` of another table is not refused: it learns a row count, never a value.
///
/// The extension keeps its own small records (setup fingerprints and the like) in the file with
/// ``record(forKey:)`` and ``setRecord(_:forKey:)``.
public struct ExtensionTables {
    private weak var transaction: ReadTransaction?
    private let registration: ExtensionRegistration
    private let policy: ExtensionAccessPolicy
    /// The statement-cache scope: a statement checked for a write transaction is never reused in
    /// a read-only one, which forbids writing.
    private let scope: String

    init(transaction: ReadTransaction, registration: ExtensionRegistration) {
        self.transaction = transaction
        self.registration = registration
        let isReadWrite = transaction is ReadWriteTransaction
        self.policy = ExtensionAccessPolicy(registration: registration, isReadWrite: isReadWrite)
        self.scope = registration.scope + (isReadWrite ? "/write" : "/read")
    }

    /// The tables the extension declared, in order.
    public var names: [String] { registration.tableNames }

    /// `name` as a quoted SQL identifier, for table and column names written into SQL.
    public static func quote(_ name: String) -> String {
        ExtensionSQL.quote(name)
    }

    /// Runs one or more statements without results (DDL, usually) in a read-write transaction.
    /// - Throws: ``DatabaseError`` `.extensionFailure` for SQL outside the extension's tables or
    ///   in a read-only transaction, `.invalidQuery` for SQL that does not compile, `.misuse` once
    ///   the transaction ended.
    public func execute(_ sql: String) throws {
        let sqlite = try connection()
        guard policy.isReadWrite else {
            // Statements run here as they compile, before one could be checked for writes.
            throw DatabaseError(
                .extensionFailure,
                "extension \"\(registration.name)\" can only execute SQL in a read-write transaction")
        }
        // A refused statement can leave part of a virtual table's schema behind inside a
        // transaction; the savepoint takes all of it back, whatever the caller does next.
        try mapSQLite { try sqlite.execute(ExtensionSQL.savepoint) }
        do {
            try mapExtensionSQLite { try sqlite.execute(sql, authorizer: policy.allows) }
        } catch {
            try? mapSQLite { try sqlite.execute(ExtensionSQL.rollbackToSavepoint) }
            throw error
        }
        try mapSQLite { try sqlite.execute(ExtensionSQL.releaseSavepoint) }
    }

    /// Runs one statement, binding `arguments` to its parameters in order, and returns the
    /// number of rows it inserted, updated or deleted.
    /// - Throws: as ``execute(_:)``.
    @discardableResult
    public func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int {
        let sqlite = try connection()
        let stmt = try prepareQuery(ExtensionQuery(sql, arguments: arguments), on: sqlite)
        defer { stmt.reset() }
        try mapExtensionSQLite { try stmt.run() }
        return sqlite.changes
    }

    /// Runs a query and calls `body` with each result row; set `stop` to end early.
    /// - Throws: as ``execute(_:)``, or whatever `body` throws.
    public func query(
        _ sql: String, _ arguments: [DatabaseValue] = [], _ body: (_ row: ResultRow, _ stop: inout Bool) throws -> Void
    ) throws {
        try query(ExtensionQuery(sql, arguments: arguments), body)
    }

    /// Runs `query` and calls `body` with each result row; set `stop` to end early.
    ///
    /// Changing the database inside `body` without setting `stop` throws
    /// `mutationDuringEnumeration`, as the core enumerations do.
    /// - Throws: as ``execute(_:)``, or whatever `body` throws.
    public func query(_ query: ExtensionQuery, _ body: (_ row: ResultRow, _ stop: inout Bool) throws -> Void) throws {
        let core = try activeTransaction().core
        let stmt = try prepareQuery(query)
        defer { stmt.reset() }
        let mutations = core.mutationCount
        var stop = false
        while try mapExtensionSQLite({ try stmt.step() }) {
            try body(ResultRow(stmt), &stop)
            if stop { return }
            guard core.mutationCount == mutations else { throw ReadTransaction.mutationDuringEnumeration() }
        }
    }

    /// The first column of the query's first row (nil without a row).
    /// - Throws: as ``execute(_:)``.
    public func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        try scalar(ExtensionQuery(sql, arguments: arguments))
    }

    /// The first column of the query's first row (nil without a row).
    /// - Throws: as ``execute(_:)``.
    public func scalar(_ query: ExtensionQuery) throws -> DatabaseValue? {
        var result: DatabaseValue?
        try self.query(query) { row, stop in
            result = row.value(at: 0)
            stop = true
        }
        return result
    }

    /// Whether `table` exists in the transaction's snapshot.
    /// - Throws: ``DatabaseError`` `.misuse` once the transaction ended.
    public func exists(_ table: String) throws -> Bool {
        try activeTransaction().snapshotHasTable(table)
    }

    /// Records `tag` as the extension's version tag.
    ///
    /// For an extension that changed its logic inside this transaction (a view's new
    /// grouping): registering it again with `tag` then
    /// reuses its tables, and with any other tag rebuilds them. Nothing is recorded for a
    /// non-persistent extension.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or once it ended.
    public func recordVersionTag(_ tag: String) throws {
        guard let write = try activeTransaction() as? ReadWriteTransaction else {
            throw DatabaseError(
                .misuse, "extension \"\(registration.name)\" can only change inside a read-write transaction")
        }
        guard try write.yapString(extension: registration.name, key: ExtensionRecord.classKey) != nil else { return }
        try write.setYapValue(.text(tag), extension: registration.name, key: ExtensionRecord.versionTagKey)
    }

    /// The extension's record stored under `key`, if any.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` once the transaction ended.
    public func record(forKey key: String) throws -> DatabaseValue? {
        try activeTransaction().yapValue(extension: registration.name, key: key).map(DatabaseValue.init)
    }

    /// Stores (or, with nil, removes) the extension's record under `key`, in the transaction.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or for a key the platform
    ///   keeps itself (`class`, `classVersion`, `versionTag`, `tables`).
    public func setRecord(_ value: DatabaseValue?, forKey key: String) throws {
        guard let write = try activeTransaction() as? ReadWriteTransaction else {
            throw DatabaseError(
                .misuse, "extension \"\(registration.name)\" can only change inside a read-write transaction")
        }
        guard !ExtensionRecord.reservedKeys.contains(key) else {
            throw DatabaseError(.misuse, "the record key \"\(key)\" is kept by Coffer for every extension")
        }
        if let value {
            try write.setYapValue(value.sqliteValue, extension: registration.name, key: key)
        } else {
            try write.removeYapValue(extension: registration.name, key: key)
        }
    }

    // MARK: Internals

    /// Prepares (through the extension's statement cache) and binds `query`.
    func prepareQuery(_ query: ExtensionQuery) throws -> Statement {
        try prepareQuery(query, on: connection())
    }

    private func prepareQuery(_ query: ExtensionQuery, on sqlite: SQLiteConnection) throws -> Statement {
        try mapExtensionSQLite {
            let stmt = try sqlite.cachedStatement(query.sql, scope: scope, authorizer: policy.allows)
            guard policy.isReadWrite || stmt.isReadOnly else {
                throw DatabaseError(
                    .extensionFailure,
                    "extension \"\(registration.name)\" cannot write in a read-only transaction: \(query.sql)")
            }
            guard Int(stmt.parameterCount) == query.arguments.count else {
                throw DatabaseError.invalidQuery(
                    "the SQL has \(stmt.parameterCount) parameter(s) but binds \(query.arguments.count) value(s)")
            }
            do {
                for (offset, value) in query.arguments.enumerated() {
                    try stmt.bind(value: value.sqliteValue, at: Int32(offset + 1))
                }
            } catch {
                stmt.reset()
                throw error
            }
            return stmt
        }
    }

    private func activeTransaction() throws -> ReadTransaction {
        guard let transaction else {
            throw DatabaseError(.misuse, "extension \"\(registration.name)\" was used after its transaction ended")
        }
        try transaction.checkActive()
        return transaction
    }

    private func connection() throws -> SQLiteConnection {
        try activeTransaction().sqlite
    }

    /// Maps SQLite's errors: a refused statement is the extension's failure, a statement that
    /// does not compile an invalid query.
    private func mapExtensionSQLite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try mapQuerySQLite(body)
        } catch let error as DatabaseError
            where error.sqliteCode == SQLiteError.ResultCode.auth || Self.isSchemaWriteRefusal(error)
        {
            throw DatabaseError(
                .extensionFailure,
                "extension \"\(registration.name)\" ran SQL outside its own tables: \(error.message)",
                underlying: error)
        }
    }

    /// Whether SQLite refused a direct write of its schema table: it does so before asking the
    /// authorizer, with a plain error, so the refusal must be recognised by its message.
    private static func isSchemaWriteRefusal(_ error: DatabaseError) -> Bool {
        guard let sqlite = error.underlying as? SQLiteError, sqlite.code == SQLiteError.ResultCode.error else {
            return false
        }
        let message = sqlite.message.lowercased()
        return message.hasPrefix("table sqlite_") && message.hasSuffix("may not be modified")
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension ExtensionTables: Sendable {}

/// A statement for an extension's tables and the values for its parameters.
public struct ExtensionQuery: Sendable {
    /// The SQL text.
    public let sql: String
    /// The values bound to the parameters, in order.
    public let arguments: [DatabaseValue]

    /// A statement and its values.
    public init(_ sql: String, arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    /// `head` (such as `SELECT "rowid" FROM "myTable"`) followed by a caller's ``DatabaseQuery``
    /// (`WHERE …`), with the query's values.
    public init(_ head: String, _ tail: DatabaseQuery) {
        self.init(tail.sql.isEmpty ? head : head + " " + tail.sql, arguments: tail.arguments)
    }
}

/// One result row of an extension's query; valid only inside the closure it was passed to.
public struct ResultRow {
    private let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// The number of result columns.
    public var count: Int { Int(statement.columnCount) }
    /// Whether column `index` is NULL.
    public func isNull(at index: Int) -> Bool { statement.isNull(Int32(index)) }
    /// Column `index` as an integer (0 for NULL).
    public func int64(at index: Int) -> Int64 { statement.int64(Int32(index)) }
    /// Column `index` as a real number (0 for NULL).
    public func double(at index: Int) -> Double { statement.double(Int32(index)) }
    /// Column `index` as text ("" for NULL).
    public func text(at index: Int) -> String { statement.text(Int32(index)) }
    /// Column `index` as bytes (nil for NULL).
    public func data(at index: Int) -> Data? { statement.data(Int32(index)) }
    /// Column `index` as stored.
    public func value(at index: Int) -> DatabaseValue { DatabaseValue(statement.value(Int32(index))) }
}

@available(*, unavailable, message: "valid only inside the closure it was passed to")
extension ResultRow: Sendable {}
