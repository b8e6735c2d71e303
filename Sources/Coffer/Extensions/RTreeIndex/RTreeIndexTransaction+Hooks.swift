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
        bindings.reserveCapacity(columns.count + 1)
        var previous = 0.0
        for (position, column) in columns.enumerated() {
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
            // Columns come in (minimum, maximum) pairs.
            if position.isMultiple(of: 2) {
                previous = value
            } else if previous > value {
                throw failure("set \(columns[position - 1]) (\(previous)) above \(column) (\(value))", row)
            }
            bindings.append(.real(value))
        }
        guard box.count == columns.count else { throw unknownColumns(in: box, row) }
        try context.tables.run(sql.upsert, bindings)
    }

    private func failure(_ what: String, _ row: ExtensionRow) -> DatabaseError {
        DatabaseError(
            .extensionFailure, "the handler of R*Tree index \"\(registeredName)\" \(what)",
            collection: row.collection, key: row.key)
    }
}
