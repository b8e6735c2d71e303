/// The SQL a full-text search runs, built once per connection from its configuration.
struct FullTextSearchSQL: Sendable {
    /// The `yap2` key YapDatabase uses for the module name.
    static let versionKey = "ftsVersion"

    /// The virtual table's definition and the statements every derived table shares.
    let derived: DerivedTableSQL
    let insert: String
    let selectRowids: String
    let count: String
    /// `SELECT "rowid", snippet(…) … MATCH ?`: five snippet arguments, then the match expression.
    let selectSnippets: String
    /// The snippet of one row: five snippet arguments, the match expression, the rowid.
    let snippetForRowid: String
    /// The order of the snippet arguments, which differs between modules.
    let version: FullTextSearch.Version

    init(registeredName: String, search: FullTextSearch) {
        version = search.version
        derived = DerivedTableSQL(table: FullTextSearch.tableName(registeredName: registeredName)) { quoted in
            var definition = search.columns.map(ExtensionTables.quote)
            if let tokenizer = search.tokenizer { definition.append(tokenizer.definition(for: search.version)) }
            let quote = search.version == .fts5 ? "'" : "\""
            for (key, value) in search.options.sorted(by: { $0.key < $1.key }) {
                definition.append("\(key)=\(quote)\(value)\(quote)")
            }
            return
                "CREATE VIRTUAL TABLE IF NOT EXISTS \(quoted) USING \(search.version.rawValue)(\(definition.joined(separator: ", ")))"
        }
        let quoted = derived.quotedTable
        let names = (["rowid"] + search.columns).map(ExtensionTables.quote)
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        insert = "INSERT INTO \(quoted) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
        selectRowids = "SELECT \"rowid\" FROM \(quoted) WHERE \(quoted) MATCH ?"
        count = "SELECT COUNT(*) FROM \(quoted) WHERE \(quoted) MATCH ?"
        let snippet = "snippet(\(quoted), ?, ?, ?, ?, ?)"
        selectSnippets = "SELECT \"rowid\", \(snippet) FROM \(quoted) WHERE \(quoted) MATCH ?"
        snippetForRowid = "SELECT \(snippet) FROM \(quoted) WHERE \(quoted) MATCH ? AND \"rowid\" = ?"
    }
}
