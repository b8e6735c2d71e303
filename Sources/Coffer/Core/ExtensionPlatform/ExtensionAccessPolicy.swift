import CofferSQLite

/// Decides, for SQLite's authorizer, which statements an extension may prepare.
struct ExtensionAccessPolicy: Sendable {
    /// The shadow tables SQLite's FTS3/4, FTS5 and R*Tree modules create beside a virtual table.
    static let shadowSuffixes = [
        "content", "segments", "segdir", "docsize", "stat", "data", "idx", "config", "node", "parent", "rowid",
    ]
    /// Tables every extension may read: the rows, and the schema (for SQLite's own bookkeeping).
    static let readableCoreTables: Set<String> = ["database2", "sqlite_master"]

    /// The shadow tables R*Tree prepares writes to whenever it connects to a table.
    static let rtreeShadowSuffixes = ["node", "parent", "rowid"]

    let owned: Set<String>
    let readable: Set<String>
    /// The R*Tree shadow names of the extension's tables, whose writes a read may prepare.
    let preparedOnConnect: Set<String>
    let isReadWrite: Bool

    init(registration: ExtensionRegistration, isReadWrite: Bool) {
        owned = Self.withShadows(registration.tableNames)
        readable = owned.union(Self.withShadows(registration.dependencyTableNames)).union(Self.readableCoreTables)
        preparedOnConnect = Set(
            registration.tableNames.flatMap { table in
                Self.rtreeShadowSuffixes.map { table.lowercased() + "_" + $0 }
            })
        self.isReadWrite = isReadWrite
    }

    static func withShadows(_ tables: [String]) -> Set<String> {
        var names: Set<String> = []
        for table in tables.map({ $0.lowercased() }) {
            names.insert(table)
            for suffix in shadowSuffixes { names.insert(table + "_" + suffix) }
        }
        return names
    }

    func allows(_ access: SQLiteAccess) -> Bool {
        // TEMP objects could shadow the extension's tables when a statement is prepared again.
        guard access.database == nil || access.database == "main" else { return false }
        let table = access.tableName?.lowercased()
        switch access.action {
        case .select, .function, .recursive:
            return true
        case .read:
            // R*Tree reads SQLite's statistics table when it exists.
            return table.map { readable.contains($0) || $0 == "sqlite_stat1" } ?? false
        case .insert, .update, .delete:
            // SQLite asks to write sqlite_master itself while creating or dropping a table, and
            // while a virtual-table module connects, even in a read; it never lets a statement
            // write it directly (that needs `writable_schema`), and creating and dropping are
            // judged on their own.
            guard let table else { return false }
            if table == "sqlite_master" { return true }
            // R*Tree prepares its shadow-table writes whenever it connects, which can be in a
            // read; SQLite reports them like a statement's own, so `ExtensionTables` refuses a
            // read's statement that would write by looking at the statement itself.
            return isReadWrite ? owned.contains(table) : preparedOnConnect.contains(table)
        case .createTable, .createVirtualTable, .dropTable, .dropVirtualTable, .analyze:
            guard isReadWrite, let table else { return false }
            return owned.contains(table)
        case .createIndex, .dropIndex:
            // Index names share one namespace: an extension's carry its table's name.
            guard isReadWrite, let table, let index = access.indexName?.lowercased() else { return false }
            return owned.contains(table) && ownsIndex(index)
        case .reindex:
            // `CREATE INDEX` asks to reindex the new index, naming the index only.
            guard isReadWrite, let index = access.indexName?.lowercased() else { return false }
            return ownsIndex(index)
        case .pragma:
            // The R*Tree module reads the page size to size its nodes.
            return access.name?.lowercased() == "page_size" && access.detail == nil
        default:
            // Renames (whose new name SQLite does not report), triggers, views, ATTACH, PRAGMA
            // writes and transaction control.
            return false
        }
    }

    /// Whether `index` is named after one of the extension's tables, as its indexes are.
    private func ownsIndex(_ index: String) -> Bool {
        owned.contains { index.hasPrefix($0 + "_") || index.hasPrefix("sqlite_autoindex_" + $0 + "_") }
    }
}
