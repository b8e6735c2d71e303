/// The SQL a secondary index runs, built once per connection from its name and setup.
struct SecondaryIndexSQL: Sendable {
    /// The table's definition and the statements every derived table shares.
    let derived: DerivedTableSQL
    let upsert: String
    /// The head of a query for matching rowids.
    let selectRowids: String

    init(registeredName: String, setup: SecondaryIndexSetup) {
        let table = SecondaryIndex.tableName(registeredName: registeredName)
        derived = DerivedTableSQL(table: table) { quoted in
            let columns = setup.columns.map { "\(ExtensionTables.quote($0.name)) \($0.type.rawValue)" }
            var statements = [
                "CREATE TABLE IF NOT EXISTS \(quoted) (\"rowid\" INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")))"
            ]
            // Index names are global to the schema, so they carry the table name (YapDatabase's
            // bare column names would collide between two indexes sharing a column name).
            for column in setup.columns {
                let indexName = ExtensionTables.quote(table + "_" + column.name)
                statements.append(
                    "CREATE INDEX IF NOT EXISTS \(indexName) ON \(quoted) (\(ExtensionTables.quote(column.name)))")
            }
            return statements.joined(separator: ";\n")
        }
        let quoted = derived.quotedTable
        let names = (["rowid"] + setup.columns.map(\.name)).map(ExtensionTables.quote)
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        upsert = "INSERT OR REPLACE INTO \(quoted) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
        selectRowids = "SELECT \"rowid\" FROM \(quoted)"
    }
}
