/// Keeping the R*Tree exact: the derived-table engine, with the index's boxes.
extension RTreeIndexTransaction: DerivedTableTransaction {
    var handler: RTreeIndexHandler { index.handler }
    var allowedCollections: AllowList<String> { index.allowedCollections }
    var derivedSQL: DerivedTableSQL { sql.derived }
    var displayKind: String { "R*Tree index" }

    func validate() throws {
        try index.setup.validate()
    }

    func isColumn(_ column: String) -> Bool {
        index.setup.columns.contains(column)
    }

    /// Stores a row's box: every column set, each minimum at most its maximum, all finite and
    /// within the coordinate type's range.
    func store(_ box: [String: Double], for row: ExtensionRow) throws {
        let columns = index.setup.columns
        let range = index.setup.coordinateType.storableRange
        var bindings: [DatabaseValue] = [.integer(row.rowid)]
        for column in columns {
            guard let value = box[column] else {
                let missing = columns.filter { box[$0] == nil }
                throw failure("did not set column(s) \(missing.joined(separator: ", "))", row)
            }
            guard value.isFinite else {
                throw failure("set column \(column) to \(value)", row)
            }
            // SQLite would store a float beyond Float's range as an infinity (a minimum of +inf:
            // the box no longer holds its own values) and wrap an integer beyond Int32's, silently.
            guard range.contains(value) else {
                throw failure(
                    "set column \(column) to \(value), outside the range of \(index.setup.coordinateType)", row)
            }
            bindings.append(.real(value))
        }
        for dimension in 0..<index.setup.dimensions {
            let (minColumn, maxColumn) = (columns[2 * dimension], columns[2 * dimension + 1])
            if let low = box[minColumn], let high = box[maxColumn], low > high {
                throw failure("set \(minColumn) (\(low)) above \(maxColumn) (\(high))", row)
            }
        }
        try context.tables.run(sql.upsert, bindings)
    }

    private func failure(_ what: String, _ row: ExtensionRow) -> DatabaseError {
        DatabaseError(
            .extensionFailure, "the handler of R*Tree index \"\(registeredName)\" \(what)",
            collection: row.collection, key: row.key)
    }
}
