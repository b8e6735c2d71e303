/// The SQL an R*Tree index runs, built once per connection from its name and setup.
struct RTreeIndexSQL: Sendable {
    /// The table's definition and the statements every derived table shares.
    let derived: DerivedTableSQL
    /// `INSERT OR REPLACE` of one box: the rowid, then every column in setup order.
    let upsert: String
    /// The head of a query for matching rowids.
    let selectRowids: String

    init(registeredName: String, setup: RTreeIndexSetup) {
        derived = DerivedTableSQL(table: RTreeIndex.tableName(registeredName: registeredName)) { quoted in
            let columns = (["rowid"] + setup.columns).map(ExtensionTables.quote).joined(separator: ", ")
            return "CREATE VIRTUAL TABLE IF NOT EXISTS \(quoted) USING \(setup.coordinateType.rawValue)(\(columns))"
        }
        let quoted = derived.quotedTable
        let names = (["rowid"] + setup.columns).map(ExtensionTables.quote)
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        upsert = "INSERT OR REPLACE INTO \(quoted) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
        selectRowids = "SELECT \"rowid\" FROM \(quoted)"
    }
}
