import CofferSQLite
import CofferTestSupport
import Testing

/// `SQLiteConnection`'s authorizer-scoped calls confine SQL to the tables a policy allows,
/// name what they refused, keep scoped statements apart, and never leave an authorizer behind.
@Suite(.timeLimit(.minutes(1))) struct SQLiteAuthorizerTests {
    /// A statement the extension policy must refuse, and the request the error must name.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let sql: String
        let named: String
        var testDescription: String { sql }
    }

    static let refusals = [
        Refusal(sql: "INSERT INTO other VALUES (3, 4)", named: #"insert into "other""#),
        Refusal(sql: "SELECT a FROM other", named: #"read "other"."a""#),
        Refusal(sql: "SELECT ext_a.k FROM ext_a JOIN other ON other.a = ext_a.v", named: #"read "other"."a""#),
        Refusal(sql: "SELECT k FROM ext_a WHERE v IN (SELECT b FROM other)", named: #"read "other"."b""#),
        Refusal(sql: "UPDATE other SET a = 0", named: #"update "other"."a""#),
        Refusal(sql: "DELETE FROM other", named: #"delete from "other""#),
        Refusal(sql: "DROP TABLE other", named: #"drop table "other""#),
        Refusal(sql: "ALTER TABLE ext_a RENAME TO other2", named: #"alter table "ext_a""#),
        Refusal(
            sql: "CREATE TRIGGER ext_a_t AFTER INSERT ON ext_a BEGIN DELETE FROM other; END",
            named: #"create trigger "ext_a_t" on "ext_a""#),
        Refusal(sql: "CREATE VIEW ext_a_v AS SELECT a FROM other", named: #"create view "ext_a_v""#),
        Refusal(sql: "CREATE TEMP TABLE ext_a_tmp (x)", named: #"insert into "sqlite_temp_master""#),
        Refusal(sql: "ATTACH DATABASE ':memory:' AS aux", named: #"attach ":memory:""#),
        Refusal(sql: "BEGIN", named: "transaction BEGIN"),
        Refusal(sql: "SAVEPOINT s", named: #"savepoint BEGIN "s""#),
        Refusal(sql: "PRAGMA user_version = 7", named: #"pragma "user_version""#),
    ]

    @Test func ownTableRunsEveryKindOfStatement() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        let policy = OwnTablesPolicy(tables: ["ext_a"])
        try connection.execute("CREATE TABLE ext_a (k TEXT PRIMARY KEY, v INTEGER)", authorizer: policy.allows)
        try connection.execute("CREATE INDEX ext_a_by_v ON ext_a (v)", authorizer: policy.allows)
        let insert = try connection.prepare("INSERT INTO ext_a (k, v) VALUES (?, ?)", authorizer: policy.allows)
        try insert.bind("one", at: 1)
        try insert.bind(Int64(1), at: 2)
        try insert.run()
        let select = try connection.prepare("SELECT k FROM ext_a WHERE v = 1", authorizer: policy.allows)
        #expect(try select.step())
        #expect(select.text(0) == "one")
        select.reset()
        try connection.prepare("DELETE FROM ext_a WHERE k = 'one'", authorizer: policy.allows).run()
        #expect(try connection.scalarInt("SELECT count(*) FROM ext_a") == 0)
        try connection.execute("DROP INDEX ext_a_by_v", authorizer: policy.allows)
        try connection.execute("DROP TABLE ext_a", authorizer: policy.allows)

        #expect(policy.refused.isEmpty)
        #expect(policy.seen.contains(SQLiteAccess(action: .createTable, name: "ext_a", database: "main")))
        let index = try #require(policy.seen.first { $0.action == .createIndex && $0.name == "ext_a_by_v" })
        #expect(index.tableName == "ext_a")
        #expect(index.indexName == "ext_a_by_v")
        #expect(policy.seen.contains(SQLiteAccess(action: .reindex, name: "ext_a_by_v", database: "main")))
        #expect(policy.seen.contains(SQLiteAccess(action: .dropTable, name: "ext_a", database: "main")))
        #expect(try schemaNames(connection) == ["other"])
        #expect(!connection.hasAuthorizer)
    }

    @Test(arguments: refusals) func statementOnAnotherTableIsRefused(_ refusal: Refusal) throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        try connection.execute("CREATE TABLE ext_a (k TEXT, v INTEGER)")
        let policy = OwnTablesPolicy(tables: ["ext_a"])

        let prepared = #expect(throws: SQLiteError.self) {
            try connection.prepare(refusal.sql, authorizer: policy.allows)
        }
        #expect(prepared?.isNotAuthorized == true)
        #expect(prepared?.message == "not authorized: \(refusal.named)")
        #expect(prepared?.sql == refusal.sql)
        let executed = #expect(throws: SQLiteError.self) {
            try connection.execute(refusal.sql, authorizer: policy.allows)
        }
        #expect(executed?.message == "not authorized: \(refusal.named)")

        #expect(!connection.hasAuthorizer)
        #expect(try rows(of: "other", connection) == ["1,2"])
        #expect(try schemaNames(connection) == ["ext_a", "other"])
        #expect(connection.isAutocommit)
    }

    @Test func alterTableIsOneRequestWithTheDatabaseFirst() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        try connection.execute("CREATE TABLE ext_a (k TEXT)")
        var seen: [SQLiteAccess] = []
        try connection.execute("ALTER TABLE ext_a ADD COLUMN v") {
            seen.append($0)
            return true
        }
        let alter = try #require(seen.first)
        #expect(alter == SQLiteAccess(action: .alterTable, name: "ext_a", database: "main"))
        #expect(alter.tableName == "ext_a")
        // A rename names only the old table: a policy cannot see the new name.
        seen = []
        try connection.execute("ALTER TABLE ext_a RENAME TO renamed") {
            seen.append($0)
            return true
        }
        #expect(!seen.contains { $0.name == "renamed" || $0.detail == "renamed" })
        #expect(seen.contains(SQLiteAccess(action: .function, detail: "sqlite_rename_table")))
    }

    @Test func unreadTableIsInvisibleToTheAuthorizer() throws {
        // SQLite 3.15.2 makes no request for a table none of whose columns is read, so a
        // policy cannot keep a row count secret; this pins the limit the API documents.
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        let policy = OwnTablesPolicy(tables: ["ext_a"])
        let count = try connection.prepare("SELECT count(*) FROM other", authorizer: policy.allows)
        #expect(try count.step())
        #expect(count.int64(0) == 1)
        #expect(!policy.seen.contains { $0.tableName == "other" })
    }

    @Test func virtualTablesAreCreatedWithTheirShadowTables() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        let policy = OwnTablesPolicy(
            tables: ["x", "r", "r_node", "r_parent", "r_rowid"], shadowPrefixes: ["x_"], allowsPageSizeRead: true)
        try connection.execute("CREATE VIRTUAL TABLE x USING fts4(body)", authorizer: policy.allows)
        try connection.execute("CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX)", authorizer: policy.allows)

        #expect(policy.refused.isEmpty)
        #expect(
            policy.seen.contains(SQLiteAccess(action: .createVirtualTable, name: "x", detail: "fts4", database: "main"))
        )
        #expect(
            policy.seen.contains(
                SQLiteAccess(action: .createVirtualTable, name: "r", detail: "rtree", database: "main")))
        let created = Set(policy.seen.filter { $0.action == .createTable }.compactMap(\.tableName))
        #expect(
            created == ["x_content", "x_segments", "x_segdir", "x_docsize", "x_stat", "r_node", "r_rowid", "r_parent"])
        #expect(policy.seen.contains(SQLiteAccess(action: .insert, name: "r_node", database: "main")))
        #expect(policy.seen.contains(SQLiteAccess(action: .pragma, name: "page_size", database: "main")))

        try connection.prepare("INSERT INTO x (body) VALUES ('hello world')", authorizer: policy.allows).run()
        let match = try connection.prepare("SELECT rowid FROM x WHERE x MATCH 'hello'", authorizer: policy.allows)
        #expect(try match.step())
        match.reset()
        try connection.prepare("INSERT INTO r VALUES (1, 0, 1)", authorizer: policy.allows).run()

        try connection.execute("DROP TABLE x; DROP TABLE r", authorizer: policy.allows)
        #expect(policy.refused.isEmpty)
        let dropped = Set(policy.seen.filter { $0.action == .dropTable }.compactMap(\.tableName))
        #expect(
            dropped == ["x_content", "x_segments", "x_segdir", "x_docsize", "x_stat", "r_node", "r_rowid", "r_parent"])
        #expect(try schemaNames(connection) == ["other"])
        #expect(!connection.hasAuthorizer)
    }

    @Test func virtualTableWithoutItsShadowNamesIsRefused() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        let policy = OwnTablesPolicy(tables: ["x", "r"], allowsPageSizeRead: true)
        let fts = #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE VIRTUAL TABLE x USING fts4(body)", authorizer: policy.allows)
        }
        #expect(fts?.isNotAuthorized == true)
        #expect(fts?.message == #"not authorized: create table "x_content" (vtable constructor failed: x)"#)
        let rtree = #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX)", authorizer: policy.allows)
        }
        #expect(rtree?.message == #"not authorized: create table "r_node""#)
        #expect(try schemaNames(connection) == ["other"])

        // R*Tree reads the page size and gives up when refused; FTS4 falls back to a default.
        let noPragma = OwnTablesPolicy(tables: ["r", "r_node", "r_parent", "r_rowid"])
        let pageSize = #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX)", authorizer: noPragma.allows)
        }
        #expect(pageSize?.message == #"not authorized: pragma "page_size""#)
        let ftsWithoutPragma = OwnTablesPolicy(tables: ["x"], shadowPrefixes: ["x_"])
        try connection.execute("CREATE VIRTUAL TABLE x USING fts4(body)", authorizer: ftsWithoutPragma.allows)
        #expect(ftsWithoutPragma.refused == [SQLiteAccess(action: .pragma, name: "page_size", database: "main")])
        #expect(!connection.hasAuthorizer)
    }

    @Test func refusedVirtualTableInATransactionNeedsARollback() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        let policy = OwnTablesPolicy(tables: ["r", "r_node", "r_rowid"], allowsPageSizeRead: true)
        try connection.execute("BEGIN; SAVEPOINT extension")
        #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX)", authorizer: policy.allows)
        }
        #expect(policy.refused == [SQLiteAccess(action: .createTable, name: "r_parent", database: "main")])
        // SQLite keeps what the module created before the refusal, until the savepoint is undone.
        #expect(try schemaNames(connection) == ["other", "r", "r_node", "r_rowid"])
        try connection.execute("ROLLBACK TO extension; RELEASE extension; COMMIT")
        #expect(try schemaNames(connection) == ["other"])
    }

    @Test func scopedStatementsAreCachedPerScope() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        try connection.execute("CREATE TABLE ext_a (k TEXT, v INTEGER)")
        let sql = "SELECT k FROM ext_a"
        let policy = OwnTablesPolicy(tables: ["ext_a"])
        let first = try connection.cachedStatement(sql, scope: "a", authorizer: policy.allows)
        let second = try connection.cachedStatement(sql, scope: "b", authorizer: policy.allows)
        #expect(first !== second)
        #expect(try connection.cachedStatement(sql, scope: "a", authorizer: policy.allows) === first)
        let unscoped = try connection.cachedStatement(sql)
        #expect(unscoped !== first && unscoped !== second)
        #expect(connection.cachedStatementCount == 3)

        // A statement still stepping is not handed out again.
        try connection.execute("INSERT INTO ext_a VALUES ('one', 1)")
        #expect(try first.step())
        let fresh = try connection.cachedStatement(sql, scope: "a", authorizer: policy.allows)
        #expect(fresh !== first)
        first.reset()
        #expect(try connection.cachedStatement(sql, scope: "a", authorizer: policy.allows) === first)

        connection.clearStatementCache()
        #expect(connection.cachedStatementCount == 0)
        #expect(!connection.hasAuthorizer)
    }

    @Test func unscopedStatementIsNeverReusedForAScope() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        let sql = "INSERT INTO other VALUES (5, 6)"
        try connection.cachedStatement(sql).run()
        let policy = OwnTablesPolicy(tables: ["ext_a"])
        let error = #expect(throws: SQLiteError.self) {
            try connection.cachedStatement(sql, scope: "ext_a", authorizer: policy.allows)
        }
        #expect(error?.message == #"not authorized: insert into "other""#)
        #expect(connection.cachedStatementCount == 1)
        // Nothing of the refused call remains: the same insert runs again without a policy.
        try connection.execute("INSERT INTO other VALUES (7, 8)")
        try connection.cachedStatement(sql).run()
        #expect(try rows(of: "other", connection) == ["1,2", "5,6", "7,8", "5,6"])
        #expect(!connection.hasAuthorizer)
    }

    @Test func consecutiveScopedCallsLeaveNoAuthorizer() throws {
        let dir = TemporaryDirectory()
        let connection = try openWithOther(dir)
        try connection.execute("CREATE TABLE ext_a (k TEXT, v INTEGER)")
        let policy = OwnTablesPolicy(tables: ["ext_a"])
        var installedDuringCall: [Bool] = []
        let watching: (SQLiteAccess) -> Bool = {
            installedDuringCall.append(connection.hasAuthorizer)
            return policy.allows($0)
        }
        _ = try connection.prepare("SELECT k FROM ext_a", authorizer: watching)
        _ = try connection.prepare("INSERT INTO ext_a VALUES ('a', 1)", authorizer: watching)
        #expect(!connection.hasAuthorizer)
        try connection.prepare("INSERT INTO other VALUES (9, 9)").run()
        #expect(throws: SQLiteError.self) { try connection.prepare("DELETE FROM other", authorizer: watching) }
        try connection.execute("UPDATE other SET a = a + 1")
        #expect(throws: SQLiteError.self) { try connection.execute("DELETE FROM other", authorizer: watching) }
        _ = try connection.cachedStatement("SELECT v FROM ext_a", scope: "ext_a", authorizer: watching)
        let read = try connection.cachedStatement("SELECT count(*) FROM other WHERE a > 0")
        #expect(try read.step())
        #expect(read.int64(0) == 2)
        read.reset()
        #expect(!installedDuringCall.isEmpty && installedDuringCall.allSatisfy { $0 })
        #expect(!connection.hasAuthorizer)
        #expect(try rows(of: "other", connection) == ["2,2", "10,9"])
    }

    @Test func actionCodesMapToTheirCases() {
        #expect(SQLiteAccess.Action(code: 1) == .createIndex)
        #expect(SQLiteAccess.Action(code: 18) == .insert)
        #expect(SQLiteAccess.Action(code: 26) == .alterTable)
        #expect(SQLiteAccess.Action(code: 33) == .recursive)
        #expect(SQLiteAccess.Action(code: 0) == .other(0))
        #expect(SQLiteAccess.Action(code: 99) == .other(99))
        let index = SQLiteAccess(action: .dropIndex, name: "i", detail: "t", database: "main")
        #expect(index.tableName == "t")
        #expect(index.description == #"drop index "i" on "t""#)
        let viaView = SQLiteAccess(action: .read, name: "t", detail: "c", database: "main", triggerOrView: "v")
        #expect(viaView.columnName == "c")
        #expect(viaView.description == #"read "t"."c" within "v""#)
        #expect(SQLiteAccess(action: .pragma, name: "key", detail: "secret").description == #"pragma "key""#)
        #expect(SQLiteAccess(action: .function, detail: "count").tableName == nil)
    }

    // MARK: Helpers

    /// Opens a plain database with a table `other` holding one row (1, 2).
    private func openWithOther(_ dir: TemporaryDirectory) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: dir.file("authorizer.sqlite").path)
        try connection.execute("CREATE TABLE other (a, b); INSERT INTO other VALUES (1, 2)")
        return connection
    }

    private func rows(of table: String, _ connection: SQLiteConnection) throws -> [String] {
        let select = try connection.prepare("SELECT a || ',' || b FROM \(table) ORDER BY rowid")
        var rows: [String] = []
        while try select.step() { rows.append(select.text(0)) }
        return rows
    }

    private func schemaNames(_ connection: SQLiteConnection) throws -> [String] {
        let select = try connection.prepare("SELECT name FROM sqlite_master ORDER BY name")
        var names: [String] = []
        while try select.step() { names.append(select.text(0)) }
        return names
    }
}

/// The policy an extension gets: its own tables, their indexes and nothing else.
///
/// It owns `tables` and every table whose name starts with one of `shadowPrefixes`, may do
/// the schema bookkeeping SQLite does while creating and dropping them, and records every request.
private final class OwnTablesPolicy {
    let tables: Set<String>
    let shadowPrefixes: [String]
    let allowsPageSizeRead: Bool
    private(set) var seen: [SQLiteAccess] = []
    private(set) var refused: [SQLiteAccess] = []

    init(tables: Set<String>, shadowPrefixes: [String] = [], allowsPageSizeRead: Bool = false) {
        self.tables = tables
        self.shadowPrefixes = shadowPrefixes
        self.allowsPageSizeRead = allowsPageSizeRead
    }

    func allows(_ access: SQLiteAccess) -> Bool {
        seen.append(access)
        let allowed = decide(access)
        if !allowed { refused.append(access) }
        return allowed
    }

    private func owns(_ table: String?) -> Bool {
        guard let table else { return false }
        return tables.contains(table) || shadowPrefixes.contains { table.hasPrefix($0) }
    }

    private func decide(_ access: SQLiteAccess) -> Bool {
        if let database = access.database, database != "main" { return false }
        switch access.action {
        case .select, .function:
            return true
        case .read, .insert, .update, .delete:
            return access.tableName == "sqlite_master" || owns(access.tableName)
        case .createTable, .dropTable, .createIndex, .dropIndex, .createVirtualTable, .dropVirtualTable:
            return owns(access.tableName)
        case .reindex:
            // CREATE INDEX rebuilds the new index; only the index's name is given.
            guard let index = access.indexName else { return false }
            return tables.contains { index.hasPrefix($0 + "_") }
        case .pragma:
            return allowsPageSizeRead && access.name == "page_size" && access.detail == nil
        default:
            return false
        }
    }
}
