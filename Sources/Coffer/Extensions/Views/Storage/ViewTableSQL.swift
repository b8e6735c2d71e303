/// The table names and statements of a ``ViewTableStore``, made once per registered name and
/// process: quoting a name goes through a Foundation string replacement, and a transaction of a
/// single-row commit would otherwise spend a noticeable share of its time writing them again.
///
/// No statement that writes may abort halfway: in a transaction, SQLite gives a statement that
/// can write several rows and abort (`INSERT OR REPLACE` into a table with an index, any `UPDATE`
/// or multi-row `INSERT` under a `NOT NULL` column) a statement journal, and SQLCipher encrypts
/// every page the statement changes into that journal, a page cipher per page per statement. The
/// writes are therefore `OR IGNORE` (the values are never null and keys never collide where
/// rows are updated) or single-row `INSERT`s, which SQLite checks before writing anything.
struct ViewTableSQL: Sendable {
    /// The most map rows one statement inserts; statements insert a power of two up to it.
    static let mapRowsPerStatement = 64

    let pageTable: String
    let mapTable: String
    let pageRecords: String
    let pageRecordsInGroup: String
    let pageData: String
    let pageOfRow: String
    let largestPage: String
    /// Binds previous page, count, data and page key.
    let updatePage: String
    /// Binds page key, group, previous page, count and data.
    let insertPage: String
    let relinkPage: String
    let deletePage: String
    /// Binds page key and rowid.
    let updateMapRow: String
    let deleteMapRow: String
    let deleteAllPages: String
    let deleteAllMapRows: String
    /// The statements inserting map rows (rowid, page key) that are not there yet, by row count.
    private let mapRowInserts: [Int: String]

    private static let made = Locked<[String: ViewTableSQL]>([:])

    /// The statements of the view registered as `registeredName`.
    static func forView(registeredName: String) -> ViewTableSQL {
        if let found = made.withLock({ $0[registeredName] }) { return found }
        let sql = ViewTableSQL(registeredName: registeredName)
        made.withLock { $0[registeredName] = sql }
        return sql
    }

    private init(registeredName: String) {
        let pageTable = ExtensionTables.quote(AutoView.pageTableName(registeredName: registeredName))
        let mapTable = ExtensionTables.quote(AutoView.mapTableName(registeredName: registeredName))
        self.pageTable = pageTable
        self.mapTable = mapTable
        pageRecords = "SELECT \"pageKey\", \"group\", \"prevPageKey\", \"count\" FROM \(pageTable)"
        pageRecordsInGroup = pageRecords + " WHERE \"group\" = ?"
        pageData = "SELECT \"data\" FROM \(pageTable) WHERE \"pageKey\" = ?"
        pageOfRow = "SELECT \"pageKey\" FROM \(mapTable) WHERE \"rowid\" = ?"
        largestPage = "SELECT MAX(\"pageKey\") FROM \(pageTable)"
        updatePage =
            "UPDATE OR IGNORE \(pageTable) SET \"prevPageKey\" = ?, \"count\" = ?, \"data\" = ? WHERE \"pageKey\" = ?"
        insertPage =
            "INSERT INTO \(pageTable) (\"pageKey\", \"group\", \"prevPageKey\", \"count\", \"data\") "
            + "VALUES (?, ?, ?, ?, ?)"
        relinkPage = "UPDATE OR IGNORE \(pageTable) SET \"prevPageKey\" = ? WHERE \"pageKey\" = ?"
        deletePage = "DELETE FROM \(pageTable) WHERE \"pageKey\" = ?"
        updateMapRow = "UPDATE OR IGNORE \(mapTable) SET \"pageKey\" = ? WHERE \"rowid\" = ?"
        deleteMapRow = "DELETE FROM \(mapTable) WHERE \"rowid\" = ?"
        deleteAllPages = "DELETE FROM \(pageTable)"
        deleteAllMapRows = "DELETE FROM \(mapTable)"
        var inserts: [Int: String] = [:]
        var count = 1
        while count <= Self.mapRowsPerStatement {
            inserts[count] =
                "INSERT OR IGNORE INTO \(mapTable) (\"rowid\", \"pageKey\") VALUES "
                + Array(repeating: "(?, ?)", count: count).joined(separator: ", ")
            count *= 2
        }
        mapRowInserts = inserts
    }

    /// The statement inserting `count` map rows (a power of two up to ``mapRowsPerStatement``),
    /// bound rowid then page key for each.
    func insertMapRows(_ count: Int) -> String {
        mapRowInserts[count] ?? ""
    }
}
