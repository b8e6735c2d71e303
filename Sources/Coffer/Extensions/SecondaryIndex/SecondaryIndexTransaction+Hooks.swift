/// Keeping the index exact: the derived-table engine, with the index's columns.
extension SecondaryIndexTransaction: DerivedTableTransaction {
    var handler: SecondaryIndexHandler { index.handler }
    var allowedCollections: AllowList<String> { index.allowedCollections }
    var derivedSQL: DerivedTableSQL { sql.derived }
    var displayKind: String { "secondary index" }

    func validate() throws {
        try index.setup.validate()
    }

    func isColumn(_ column: String) -> Bool {
        index.setup.column(named: column) != nil
    }

    func store(_ values: [String: any DatabaseValueConvertible], for row: ExtensionRow) throws {
        var bindings: [DatabaseValue] = [.integer(row.rowid)]
        for column in index.setup.columns { bindings.append(values[column.name]?.databaseValue ?? .null) }
        try context.tables.run(sql.upsert, bindings)
    }
}
