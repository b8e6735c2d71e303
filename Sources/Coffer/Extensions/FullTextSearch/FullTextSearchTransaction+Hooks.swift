/// Keeping the search table exact: the derived-table engine, with the search's columns.
extension FullTextSearchTransaction: DerivedTableTransaction {
    var handler: FullTextSearchHandler { search.handler }
    var allowedCollections: AllowList<String> { search.allowedCollections }
    var derivedSQL: DerivedTableSQL { sql.derived }
    var displayKind: String { "full-text search" }
    var extraRecords: [String: DatabaseValue] { [FullTextSearchSQL.versionKey: .text(search.version.rawValue)] }

    func validate() throws {
        try search.validate(registeredName: registeredName)
    }

    func isColumn(_ column: String) -> Bool {
        search.columns.contains(column)
    }

    func store(_ text: [String: String], for row: ExtensionRow) throws {
        var bindings: [DatabaseValue] = [.integer(row.rowid)]
        bindings.reserveCapacity(search.columns.count + 1)
        var found = 0
        for column in search.columns {
            if let value = text[column] {
                found += 1
                bindings.append(.text(value))
            } else {
                bindings.append(.null)
            }
        }
        guard found == text.count else { throw unknownColumns(in: text, row) }
        // Delete then insert: every FTS module supports both, not all support OR REPLACE.
        try context.tables.run(sql.derived.deleteRowid, [.integer(row.rowid)])
        try context.tables.run(sql.insert, bindings)
    }

    /// Creates the virtual table, telling a missing module apart from other failures.
    /// - Throws: ``DatabaseError`` `.unsupportedFeature` when SQLite lacks the module.
    func createTable() throws {
        do {
            try context.tables.execute(sql.derived.create)
        } catch let error as DatabaseError where error.message.contains("no such module") {
            throw DatabaseError(
                .unsupportedFeature, "the linked SQLite has no \(search.version.rawValue) module", underlying: error)
        }
    }
}
