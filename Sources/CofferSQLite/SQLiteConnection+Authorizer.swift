internal import CSQLCipher

/// Confining SQL to what a policy allows (`sqlite3_set_authorizer`), so an extension's
/// statements cannot touch tables that are not its own.
///
/// SQLite asks the authorizer about the tables, columns, schema changes, pragmas and functions
/// a statement uses while it compiles the statement, not while it runs, so each call below
/// installs its policy for the compilation only and puts back what was installed before (no
/// authorizer, between calls). SQLite allows one authorizer per handle and offers no way to
/// read it back, hence the connection remembers the installed one itself.
///
/// Inherited limits that matter to policy writers (SQLite 3.15.2):
/// - A table whose columns are not read is not reported: `SELECT count(*) FROM t` and
///   `SELECT 1 FROM t` make no request naming `t`.
/// - `ALTER TABLE t RENAME TO u` is reported as `alterTable` on `t` alone; `u` appears in no
///   request, so a policy cannot keep a rename inside its own names and should refuse `alterTable`.
/// - SQLite recompiles a prepared statement at its next step after a schema change, and
///   after every authorizer change (installing or removing one expires every statement on the
///   handle), with whatever authorizer is installed then — normally none. The same text against
///   the same names touches the same tables, unless a TEMP object now shadows a main one, so
///   policies should refuse TEMP objects.
///
/// Related SQLite documentation: https://www.sqlite.org/c3ref/set_authorizer.html
extension SQLiteConnection {
    /// The policy of one authorizer-scoped call and the requests it refused, reached by SQLite
    /// through an unretained context pointer while the connection retains the box.
    final class AuthorizerBox {
        let policy: (SQLiteAccess) -> Bool
        private(set) var denials: [SQLiteAccess] = []

        init(_ policy: @escaping (SQLiteAccess) -> Bool) { self.policy = policy }

        func decide(_ access: SQLiteAccess) -> Int32 {
            if policy(access) { return SQLITE_OK }
            denials.append(access)
            return SQLITE_DENY
        }
    }

    /// Where an authorized statement is cached: a statement serves only the scope that
    /// authorized it, never another scope or an unscoped caller.
    struct ScopedStatementKey: Hashable {
        let scope: String
        let sql: String

        /// Hashes the SQL only: scopes differ in few statements, and a scoped statement is
        /// looked up on every row an extension writes.
        func hash(into hasher: inout Hasher) {
            hasher.combine(sql)
        }
    }

    /// Whether an authorizer-scoped call is in progress on this connection (false between calls).
    package var hasAuthorizer: Bool { installedAuthorizer != nil }

    /// Prepares a statement the caller owns, refusing it unless `authorizer` allows every
    /// request SQLite makes while compiling it.
    ///
    /// `authorizer` runs on the calling thread, during this call only, once per request; it
    /// must not use the connection. No authorizer remains installed afterwards.
    /// - Throws: ``SQLiteError`` with code `SQLITE_AUTH` and a message naming the refused
    ///   request (`not authorized: insert into "t"`), or SQLite's error when the SQL does not compile.
    package func prepare(_ sql: String, authorizer: (SQLiteAccess) -> Bool) throws -> Statement {
        var stmt: OpaquePointer?
        let (failure, denials) = withAuthorizer(authorizer) { () -> SQLiteError? in
            let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
            if rc == SQLITE_OK, stmt != nil { return nil }
            return makeError(rc == SQLITE_OK ? SQLITE_MISUSE : rc, sql: sql)
        }
        if let failure {
            sqlite3_finalize(stmt)
            throw authorizationError(failure, denials: denials)
        }
        guard let stmt else { throw makeError(SQLITE_MISUSE, sql: sql) }
        return Statement(handle: stmt, connection: self, sql: sql)
    }

    /// Returns the statement for `sql` prepared under `scope`'s authorizer, reusing the one
    /// cached for the same scope and text when it is not in use.
    ///
    /// `scope` names the policy (an extension's registered name): the cached statement was
    /// authorized when first prepared, and a hit does not call `authorizer` again, so one scope
    /// must always come with the same policy. Statements cached by the unscoped
    /// `cachedStatement(_:)` or for other scopes are never returned here. A statement still stepping is not handed
    /// out twice: a fresh, uncached one is prepared under `authorizer` instead.
    /// - Throws: ``SQLiteError``, as ``prepare(_:authorizer:)``.
    package func cachedStatement(
        _ sql: String, scope: String, authorizer: (SQLiteAccess) -> Bool
    ) throws -> Statement {
        let key = ScopedStatementKey(scope: scope, sql: sql)
        if let stmt = scopedStatementCache[key] {
            if !stmt.isBusy { return stmt }
            return try prepare(sql, authorizer: authorizer)
        }
        let stmt = try prepare(sql, authorizer: authorizer)
        // Scoped SQL may come from callers' queries, whose texts vary without bound.
        if scopedStatementCache.count >= Self.scopedStatementLimit { scopedStatementCache.removeAll() }
        scopedStatementCache[key] = stmt
        return stmt
    }

    /// How many scoped statements a connection keeps before it starts over.
    static let scopedStatementLimit = 256

    /// Runs one or more SQL statements with `authorizer` judging each, including the statements
    /// a virtual-table module runs while creating or dropping its shadow tables.
    ///
    /// `authorizer` runs on the calling thread, during this call only; it must not use the
    /// connection. Statements before a refused one have run, as with ``execute(_:)``. A module
    /// may carry on without what was refused (FTS4 does without `PRAGMA page_size`; R*Tree does
    /// not), and the call then succeeds.
    /// A refused `CREATE VIRTUAL TABLE` inside an open transaction leaves the table's schema
    /// entry and the shadow tables created so far (SQLite 3.15.2 does not undo them), so run it
    /// inside a savepoint and roll that back on failure.
    /// - Throws: ``SQLiteError`` with code `SQLITE_AUTH` naming the refused request, or SQLite's error.
    package func execute(_ sql: String, authorizer: (SQLiteAccess) -> Bool) throws {
        let (failure, denials) = withAuthorizer(authorizer) { () -> SQLiteError? in
            let rc = sqlite3_exec(handle, sql, nil, nil, nil)
            return rc == SQLITE_OK ? nil : makeError(rc, sql: sql)
        }
        if let failure { throw authorizationError(failure, denials: denials) }
    }

    /// Runs `body` with `authorizer` installed, then reinstalls whatever was installed before.
    ///
    /// The policy is boxed for SQLite's context pointer without escaping: the box is released
    /// before this returns, which `withoutActuallyEscaping` checks.
    private func withAuthorizer<R>(
        _ authorizer: (SQLiteAccess) -> Bool, _ body: () -> R
    ) -> (result: R, denials: [SQLiteAccess]) {
        withoutActuallyEscaping(authorizer) { policy in
            let box = AuthorizerBox(policy)
            let previous = installedAuthorizer
            install(box)
            defer { install(previous) }
            let result = body()
            return (result, box.denials)
        }
    }

    /// Points SQLite at `box`'s policy, or removes the authorizer for nil.
    private func install(_ box: AuthorizerBox?) {
        installedAuthorizer = box
        guard let box else {
            sqlite3_set_authorizer(handle, nil, nil)
            return
        }
        sqlite3_set_authorizer(
            handle,
            { context, code, third, fourth, fifth, sixth in
                guard let context else { return SQLITE_DENY }
                let access = SQLiteAccess(
                    code: code, third.map { String(cString: $0) }, fourth.map { String(cString: $0) },
                    fifth.map { String(cString: $0) }, sixth.map { String(cString: $0) })
                return Unmanaged<AuthorizerBox>.fromOpaque(context).takeUnretainedValue().decide(access)
            }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Names the refused requests in place of SQLite's bare "not authorized".
    ///
    /// A failure for another reason keeps SQLite's error even when a request was refused on
    /// the way: FTS4 tolerates a refused `PRAGMA page_size`, so that refusal caused nothing.
    private func authorizationError(_ failure: SQLiteError, denials: [SQLiteAccess]) -> SQLiteError {
        guard failure.code == SQLITE_AUTH, !denials.isEmpty else { return failure }
        var message = "not authorized: " + denials.map(\.description).joined(separator: "; ")
        // SQLite's own words for a refusal add nothing; a module's ("vtable constructor failed") do.
        let sqliteRefusal =
            failure.message == "not authorized"
            || (failure.message.hasPrefix("access to ") && failure.message.hasSuffix(" is prohibited"))
        if !sqliteRefusal { message += " (\(failure.message))" }
        return SQLiteError(
            code: failure.code, extendedCode: failure.extendedCode, message: message, sql: failure.sql,
            path: failure.path)
    }
}
