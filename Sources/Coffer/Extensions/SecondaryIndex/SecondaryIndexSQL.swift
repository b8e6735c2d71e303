/// The SQL a secondary index runs, built once per connection from its name and setup.
struct SecondaryIndexSQL {
    /// The `yap2` key under which the index records the DDL it was built with.
    static let setupKey = "setup"

    let table: String
    let quotedTable: String
    /// `CREATE TABLE …` then one `CREATE INDEX …` per column; also the recorded fingerprint.
    let create: String
    let drop: String
    let upsert: String
    let deleteRowid: String
    let deleteAll: String
    let deleteCollection: String
    /// The head of a query for matching rowids.
    let selectRowids: String
    let count: String

    init(registeredName: String, setup: SecondaryIndexSetup) {
        table = SecondaryIndex.tableName(registeredName: registeredName)
        let quoted = ExtensionSQL.quote(table)
        quotedTable = quoted
        let columns = setup.columns.map { "\(ExtensionSQL.quote($0.name)) \($0.type.rawValue)" }
        var statements = [
            "CREATE TABLE IF NOT EXISTS \(quoted) (\"rowid\" INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")))"
        ]
        // Index names are global to the schema, so they carry the table name (YapDatabase's bare
        // column names would collide between two indexes sharing a column name).
        for column in setup.columns {
            let indexName = ExtensionSQL.quote(table + "_" + column.name)
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(indexName) ON \(quoted) (\(ExtensionSQL.quote(column.name)))")
        }
        create = statements.joined(separator: ";\n")
        drop = "DROP TABLE IF EXISTS \(quoted)"
        let names = (["rowid"] + setup.columns.map(\.name)).map(ExtensionSQL.quote)
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        upsert = "INSERT OR REPLACE INTO \(quoted) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
        deleteRowid = "DELETE FROM \(quoted) WHERE \"rowid\" = ?"
        deleteAll = "DELETE FROM \(quoted)"
        deleteCollection =
            "DELETE FROM \(quoted) WHERE \"rowid\" IN (SELECT \"rowid\" FROM \"database2\" WHERE \"collection\" = ?)"
        selectRowids = "SELECT \"rowid\" FROM \(quoted)"
        count = "SELECT COUNT(*) FROM \(quoted)"
    }
}
