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
        bindings.reserveCapacity(index.setup.columns.count + 1)
        var found = 0
        for column in index.setup.columns {
            if let value = values[column.name] {
                found += 1
                bindings.append(value.databaseValue)
            } else {
                bindings.append(.null)
            }
        }
        guard found == values.count else { throw unknownColumns(in: values, row) }
        try context.tables.run(sql.upsert, bindings)
    }
}
