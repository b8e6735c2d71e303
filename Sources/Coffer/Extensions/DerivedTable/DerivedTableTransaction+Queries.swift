/// Queries over a derived table with a caller's ``DatabaseQuery`` appended to a head.
extension DerivedTableTransaction {
    /// Calls `body` with each row whose entry matches `head <query>` (`head` selects rowids).
    func enumerateMatches(
        _ query: DatabaseQuery, head: String, readingObject: Bool, readingMetadata: Bool,
        _ body: (_ row: MatchedRow, _ stop: inout Bool) throws -> Void
    ) throws {
        try rejectAggregate(query)
        try checkQueryable()
        try context.enumerateMatchedRows(
            ExtensionQuery(head, query), readingObject: readingObject, readingMetadata: readingMetadata, body)
    }

    /// The first column of the first row of `head <query>` (`.null` without a row).
    func singleValue(_ query: DatabaseQuery, head: String) throws -> DatabaseValue {
        try checkQueryable()
        return try context.tables.scalar(ExtensionQuery(head, query)) ?? .null
    }

    /// The number of entries matching `query`.
    func countMatches(_ query: DatabaseQuery) throws -> Int {
        try rejectAggregate(query)
        return Int(try singleValue(query, head: "SELECT COUNT(*) FROM \(derivedSQL.quotedTable)").int64Value ?? 0)
    }

    func rejectAggregate(_ query: DatabaseQuery) throws {
        guard query.aggregateFunction == nil else {
            throw DatabaseError.invalidQuery("an aggregate query can only run through performAggregateQuery")
        }
    }
}

extension DerivedTableTransaction {
    /// The rowid of each of `keys` in `collection` that has an entry in the table.
    func indexedRowids(forKeys keys: some Sequence<String>, inCollection collection: String?) throws -> [String: Int64]
    {
        try checkQueryable()
        let hasEntry = "SELECT 1 FROM \(derivedSQL.quotedTable) WHERE \"rowid\" = ?"
        var rowids: [String: Int64] = [:]
        for key in keys {
            guard let rowid = try context.rowid(forKey: key, inCollection: collection),
                try context.tables.scalar(hasEntry, [.integer(rowid)]) != nil
            else { continue }
            rowids[key] = rowid
        }
        return rowids
    }
}
