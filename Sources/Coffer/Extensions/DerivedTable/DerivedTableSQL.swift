/// The statements every derived table runs, whatever its module: its definition and the
/// deletions that keep it in step with removed rows.
///
/// The table's `rowid` is the row's rowid in `database2` (an R*Tree's id column is its rowid too).
struct DerivedTableSQL: Sendable {
    /// The table's name, quoted.
    let quotedTable: String
    /// The definition (`CREATE … IF NOT EXISTS`, possibly with indexes), also the fingerprint
    /// recorded in the file: a different one rebuilds the table.
    let create: String
    let drop: String
    let deleteRowid: String
    let deleteAll: String
    /// Deletes the entries of one collection's rows (found through `database2`, so it runs
    /// before the rows go).
    let deleteCollection: String

    init(table: String, create: (_ quotedTable: String) -> String) {
        let quoted = ExtensionTables.quote(table)
        quotedTable = quoted
        self.create = create(quoted)
        drop = "DROP TABLE IF EXISTS \(quoted)"
        deleteRowid = "DELETE FROM \(quoted) WHERE \"rowid\" = ?"
        deleteAll = "DELETE FROM \(quoted)"
        deleteCollection =
            "DELETE FROM \(quoted) WHERE \"rowid\" IN (SELECT \"rowid\" FROM \"database2\" WHERE \"collection\" = ?)"
    }
}
