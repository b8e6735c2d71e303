internal import CSQLCipher
package import Foundation

/// Owns one SQLite/SQLCipher database handle and every statement prepared on it.
///
/// Not thread-safe: a connection is used by one thread at a time (Coffer confines each to a
/// serial queue). The handle is closed when the object is released.
package final class SQLiteConnection: @unchecked Sendable {
    // Safety: SQLite is opened with SQLITE_OPEN_NOMUTEX, so the handle must never be used by
    // two threads at once. Every owner confines it: a connection's serial queue, or a lock (`Locked`).
    let handle: OpaquePointer
    /// The file this connection was opened on.
    package let path: String
    var statementCache: [String: Statement] = [:]
    var constantStatements: [UInt: Statement] = [:]
    /// A two-way front for `constantStatements`: each address maps to a slot and its neighbour.
    ///
    /// A hot statement is found with one multiply and a compare or two instead of hashing its
    /// address. One slot per address let two hot statements whose addresses met in a slot (which
    /// a change anywhere in the binary can cause) evict each other on every use. The connection
    /// is confined to one thread, so Swift's dynamic exclusivity check on this array would only
    /// cost time.
    @exclusivity(unchecked) private var recentConstants = [RecentStatement?](repeating: nil, count: 128)
    /// Keeps the WAL hook's callback alive as long as the handle.
    var walHookBox: AnyObject?
    /// Statements prepared under an authorizer, apart from `statementCache` so that one is
    /// never handed to another scope or to a caller without one.
    var scopedStatementCache: [ScopedStatementKey: Statement] = [:]
    /// The authorizer SQLite calls now, if any: SQLite cannot report it, and a nested scoped
    /// call must put it back.
    var installedAuthorizer: AuthorizerBox?

    /// Opens (and by default creates) the database file at `path`.
    ///
    /// Nothing is read from the file yet: SQLCipher needs the key before the first read.
    /// `vfs` names a registered SQLite VFS; nil uses the default one (only tests pass another,
    /// ``FaultInjectingVFS``). Databases it attaches use the same VFS.
    /// - Throws: ``SQLiteError`` when the file cannot be opened (or no VFS has that name).
    package init(path: String, readOnly: Bool = false, create: Bool = true, vfs: String? = nil) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, path: path)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        registerRankingFunctions()
    }

    /// Whether ``close()`` has run; a closed connection must not be used again.
    // Unchecked: read at every transaction's begin, set once by `close()`, which runs when no
    // transaction uses the handle; the dynamic check cost more than the read.
    @exclusivity(unchecked) package private(set) var isClosed = false

    deinit {
        close()
    }

    /// Finalizes every cached statement and closes the handle; later calls do nothing.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        clearStatementCache()
        sqlite3_wal_hook(handle, nil, nil)
        sqlite3_close_v2(handle)
        walHookBox = nil
    }

    /// Turns a non-OK result code into a thrown ``SQLiteError`` carrying SQLite's message.
    @inline(__always)
    func check(_ rc: Int32, sql: String? = nil) throws {
        guard rc == SQLITE_OK else { throw makeError(rc, sql: sql) }
    }

    func makeError(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(
            code: rc & 0xFF,
            extendedCode: sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)),
            sql: sql,
            path: path)
    }

    /// Runs one or more SQL statements that return no rows the caller needs.
    /// - Throws: ``SQLiteError``.
    package func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// Prepares a statement the caller owns (it is finalized when released).
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw makeError(rc == SQLITE_OK ? SQLITE_MISUSE : rc, sql: sql) }
        return Statement(handle: stmt, connection: self, sql: sql)
    }

    /// Returns a prepared statement for `sql`, reusing the cached one when it is not in use.
    ///
    /// A statement that is still stepping (a nested enumeration) is never handed out twice: a
    /// fresh, uncached statement is prepared instead.
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func cachedStatement(_ sql: String) throws -> Statement {
        if let stmt = statementCache[sql] {
            if !stmt.isBusy { return stmt }
            return try prepare(sql)
        }
        let stmt = try prepare(sql)
        statementCache[sql] = stmt
        return stmt
    }

    /// Returns the cached statement for a constant SQL text, found by the text's address (no
    /// hashing of the SQL on the hot path).
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func cachedStatement(_ sql: StaticString) throws -> Statement {
        let address = UInt(bitPattern: sql.utf8Start)
        let slot = Self.recentSlot(address)
        if let recent = recentStatement(address, slot) { return recent.takeUnretainedValue() }
        let stmt: Statement
        if let cached = constantStatements[address] {
            guard !cached.isBusy else { return try prepare(sql.description) }
            stmt = cached
        } else {
            stmt = try prepare(sql.description)
            constantStatements[address] = stmt
        }
        // The statement in the slot moves to the neighbour, so two that share a slot both stay.
        if let displaced = recentConstants[slot], displaced.address != address {
            recentConstants[slot ^ 1] = displaced
        }
        recentConstants[slot] = RecentStatement(address: address, statement: .passUnretained(stmt))
        return stmt
    }

    /// ``Statement/copyColumn(_:into:keeping:at:lending:at:)`` on the cached statement for `sql`:
    /// a point read's statement lookup, bindings and copy in one call.
    /// - Throws: ``SQLiteError``.
    package func copyColumn(
        _ column: Int32, of sql: StaticString, into data: inout Data, keeping kept: String, at keptIndex: Int32,
        lending text: String, at textIndex: Int32
    ) throws -> Bool? {
        try withCachedStatement(sql) { statement in
            try statement.copyColumn(column, into: &data, keeping: kept, at: keptIndex, lending: text, at: textIndex)
        }
    }

    /// ``Statement/run(lending:at:_:at:)`` on the cached statement for `sql`, after binding `kept`
    /// to parameter `keptIndex` (as ``Statement/bindKept(_:at:)``) and lending `extra` to
    /// `extraIndex` (NULL when nil): a row write in one call.
    /// - Returns: the number of rows the statement changed.
    /// - Throws: ``SQLiteError``.
    package func run(
        _ sql: StaticString, keeping kept: String, at keptIndex: Int32, lending text: String, at textIndex: Int32,
        _ blob: Data, at blobIndex: Int32, _ extra: Data?, at extraIndex: Int32
    ) throws -> Int {
        try withCachedStatement(sql) { statement in
            try statement.bindKept(kept, at: keptIndex)
            guard let extra else {
                try statement.bindNull(at: extraIndex)
                return try statement.run(lending: text, at: textIndex, blob, at: blobIndex)
            }
            var changed = 0
            try statement.withLent(extra, at: extraIndex) {
                changed = try statement.run(lending: text, at: textIndex, blob, at: blobIndex)
            }
            return changed
        }
    }

    /// Calls `body` with the cached statement for `sql` (the constant-text `cachedStatement(_:)`),
    /// without retaining and releasing it when it is one of the recent constants.
    @inline(__always)
    private func withCachedStatement<R>(_ sql: StaticString, _ body: (Statement) throws -> R) throws -> R {
        let address = UInt(bitPattern: sql.utf8Start)
        guard let recent = recentStatement(address, Self.recentSlot(address)) else {
            return try body(cachedStatement(sql))
        }
        return try recent._withUnsafeGuaranteedRef(body)
    }

    /// The statement for the SQL text at `address` in the recent constants (`slot` or its
    /// neighbour), unless it is stepping: a nested use then gets a statement of its own.
    @inline(__always)
    private func recentStatement(_ address: UInt, _ slot: Int) -> Unmanaged<Statement>? {
        var found = recentConstants[slot]
        if found?.address != address { found = recentConstants[slot ^ 1] }
        guard let recent = found, recent.address == address else { return nil }
        return recent.statement._withUnsafeGuaranteedRef { $0.isBusy } ? nil : recent.statement
    }

    /// The slot of the recent constants an address maps to (its neighbour is `slot ^ 1`).
    @inline(__always)
    private static func recentSlot(_ address: UInt) -> Int {
        // Fibonacci hashing: the top 7 bits of the product spread nearby addresses over the slots.
        Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> 57)
    }

    /// Prepares a constant SQL text.
    /// - Throws: ``SQLiteError``.
    package func prepare(_ sql: StaticString) throws -> Statement {
        try prepare(sql.description)
    }

    /// Runs constant SQL.
    /// - Throws: ``SQLiteError``.
    package func execute(_ sql: StaticString) throws {
        try execute(sql.description)
    }

    /// Finalizes every cached statement (they are prepared again on demand).
    package func clearStatementCache() {
        statementCache.removeAll()
        scopedStatementCache.removeAll()
        // The front first: it does not own its statements, the table does.
        for slot in recentConstants.indices { recentConstants[slot] = nil }
        constantStatements.removeAll()
    }

    /// The number of statements currently cached.
    package var cachedStatementCount: Int {
        statementCache.count + scopedStatementCache.count + constantStatements.count
    }

    /// The rowid of the most recent successful INSERT on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed by every INSERT, UPDATE or DELETE since the connection opened.
    package var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Whether the connection is outside any explicit transaction.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Frees as much heap memory as SQLite can release for this connection.
    package func releaseMemory() {
        sqlite3_db_release_memory(handle)
    }

    /// Waits up to `milliseconds` for a lock held by another connection before failing with `SQLITE_BUSY`.
    package func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Turns SQLite's automatic WAL checkpoints off (Coffer runs its own) or sets their page threshold.
    package func setAutoCheckpoint(pages: Int32) {
        sqlite3_wal_autocheckpoint(handle, pages)
    }

    /// The version of the SQLite library linked, such as "3.15.2".
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Reads a single value with a one-row query: the first column of the first row, as text.
    /// - Throws: ``SQLiteError``.
    package func scalarText(_ sql: String) throws -> String? {
        let stmt = try prepare(sql)
        guard try stmt.step() else { return nil }
        return stmt.isNull(0) ? nil : stmt.text(0)
    }

    /// Reads a single integer with a one-row query (nil when it returns no row or NULL).
    /// - Throws: ``SQLiteError``.
    package func scalarInt(_ sql: String) throws -> Int64? {
        let stmt = try prepare(sql)
        guard try stmt.step() else { return nil }
        return stmt.isNull(0) ? nil : stmt.int64(0)
    }
}

/// A constant statement remembered in ``SQLiteConnection``'s two-way front cache.
struct RecentStatement {
    let address: UInt
    /// Unretained: `constantStatements` owns every statement in the front cache (the front is
    /// cleared first), so a fused call can use one without retaining and releasing it.
    let statement: Unmanaged<Statement>
}
