/// The rowids (and snippets) of matches, for extensions built on a search (a
/// ``SearchResultsView``), which need the table's rows rather than the database's.
extension FullTextSearchTransaction {
    /// The rowid of each row matching `expression`, with its snippet when `options` is given
    /// ("" otherwise), within `rowids` when given.
    ///
    /// `shouldStop` is asked every few hundred matches; returning true ends the scan early with
    /// what was found so far.
    /// - Complexity: the full-text query's cost; no row of `database2` is read.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for an expression SQLite cannot parse, `.misuse`.
    func matchingRowids(
        _ expression: String, within rowids: ClosedRange<Int64>? = nil,
        snippet options: FullTextSearch.SnippetOptions? = nil, shouldStop: () -> Bool = { false }
    ) throws -> [Int64: String] {
        try checkQueryable()
        var sqlText = options == nil ? sql.selectRowids : sql.selectSnippets
        var arguments: [DatabaseValue] = try options.map(snippetArguments) ?? []
        arguments.append(.text(expression))
        if let rowids {
            // FTS4 narrows its doclists to a docid range, so checking a few rows stays cheap.
            sqlText += " AND \"rowid\" BETWEEN ? AND ?"
            arguments += [.integer(rowids.lowerBound), .integer(rowids.upperBound)]
        }
        var found: [Int64: String] = [:]
        let withSnippet = options != nil
        try context.tables.query(sqlText, arguments) { row, stop in
            found[row.int64(at: 0)] = withSnippet ? row.text(at: 1) : ""
            if found.count % 256 == 0, shouldStop() { stop = true }
        }
        return found
    }
}
