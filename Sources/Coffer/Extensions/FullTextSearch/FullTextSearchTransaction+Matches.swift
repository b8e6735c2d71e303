import CofferSQLite

/// The rowids (snippets, scores) of matches, for extensions built on a search (a
/// ``SearchResultsView``), which need the table's rows rather than the database's.
extension FullTextSearchTransaction {
    /// One matching row.
    struct Match {
        /// The snippet, when asked for ("" otherwise).
        var snippet: String
        /// The BM25 relevance, when asked for (0 otherwise).
        var score: Double
    }

    /// Each row matching `expression`, within `rowids` when given, with its snippet when `options`
    /// is given and its relevance when `weights` is.
    ///
    /// `shouldStop` is asked every few hundred matches; returning true ends the scan early with
    /// what was found so far.
    /// - Complexity: the full-text query's cost; no row of `database2` is read.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for an expression SQLite cannot parse or an
    ///   unknown weighted column, `.unsupportedFeature` for relevance on FTS3, `.misuse`.
    func matches(
        _ expression: String, within rowids: ClosedRange<Int64>? = nil,
        snippet options: FullTextSearch.SnippetOptions? = nil, relevance weights: [String: Double]? = nil,
        shouldStop: () -> Bool = { false }
    ) throws -> [Int64: Match] {
        try checkQueryable()
        let table = sql.derived.quotedTable
        var columns = ["\"rowid\""]
        var arguments: [DatabaseValue] = []
        if let options {
            columns.append("snippet(\(table), ?, ?, ?, ?, ?)")
            arguments += try snippetArguments(options)
        }
        if let weights {
            let (function, values) = try relevanceFunction(weights)
            columns.append(function)
            arguments += values
        }
        var text = "SELECT \(columns.joined(separator: ", ")) FROM \(table) WHERE \(table) MATCH ?"
        arguments.append(.text(expression))
        if let rowids {
            // FTS4 narrows its doclists to a docid range, so checking a few rows stays cheap.
            text += " AND \"rowid\" BETWEEN ? AND ?"
            arguments += [.integer(rowids.lowerBound), .integer(rowids.upperBound)]
        }
        var found: [Int64: Match] = [:]
        let scoreColumn = options == nil ? 1 : 2
        try context.tables.query(text, arguments) { row, stop in
            found[row.int64(at: 0)] = Match(
                snippet: options == nil ? "" : row.text(at: 1), score: weights == nil ? 0 : row.double(at: scoreColumn))
            if found.count % 256 == 0, shouldStop() { stop = true }
        }
        return found
    }

    /// The BM25 call over this table's `matchinfo` with one weight per column (1 unless given).
    /// - Throws: ``DatabaseError`` `.invalidQuery` for a weight of a column the search does not
    ///   have, `.unsupportedFeature` on FTS3, whose `matchinfo` lacks the row counts BM25 needs.
    func relevanceFunction(_ weights: [String: Double]) throws -> (sql: String, arguments: [DatabaseValue]) {
        guard search.version == .fts4 else {
            throw DatabaseError(
                .unsupportedFeature,
                "relevance needs FTS4; full-text search \"\(registeredName)\" uses \(search.version.rawValue)")
        }
        for column in weights.keys where !search.columns.contains(column) {
            throw DatabaseError.invalidQuery("full-text search \"\(registeredName)\" has no column \"\(column)\"")
        }
        let values = search.columns.map { DatabaseValue.real(weights[$0] ?? 1) }
        let placeholders = Array(repeating: ", ?", count: values.count).joined()
        return ("\(BM25.functionName)(matchinfo(\(sql.derived.quotedTable), 'pcnalx')\(placeholders))", values)
    }
}

/// Ranking matches by relevance: Okapi BM25 over FTS4's `matchinfo`, since FTS3 and FTS4 have
/// no rank of their own.
extension FullTextSearchTransaction {
    /// Calls `body` with the collection, key and relevance of each row matching `expression`,
    /// best match first (ties in rowid order).
    ///
    /// ```swift
    /// try search.enumerateKeysByRelevance(matching: "encrypt*", columnWeights: ["title": 3]) {
    ///     collection, key, score, stop in print(key, score)
    /// }
    /// ```
    ///
    /// The score is Okapi BM25 (k1 = 1.2, b = 0.75) summed over the query's phrases and the
    /// columns, each column's part multiplied by its weight in `columnWeights` (1 for those not
    /// given, 0 leaves a column out); higher is better.
    /// - Complexity: the full-text query's cost plus sorting the matches.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for an expression SQLite cannot parse or a
    ///   weight of an unknown column, `.unsupportedFeature` on FTS3, `.misuse`, or whatever
    ///   `body` throws.
    public func enumerateKeysByRelevance(
        matching expression: String, columnWeights: [String: Double] = [:],
        _ body: (_ collection: String, _ key: String, _ score: Double, _ stop: inout Bool) throws -> Void
    ) throws {
        try checkQueryable()
        let (function, weights) = try relevanceFunction(columnWeights)
        let table = sql.derived.quotedTable
        let query = ExtensionQuery(
            "SELECT \"rowid\", \(function) AS \"score\" FROM \(table) WHERE \(table) MATCH ? ORDER BY \"score\" DESC, \"rowid\"",
            arguments: weights + [.text(expression)])
        try context.enumerateMatchedRows(query, readingObject: false, readingMetadata: false) { row, stop in
            try body(row.collectionKey.collection, row.collectionKey.key, row.columns.double(at: 1), &stop)
        }
    }

    /// The collection and key of every row matching `expression`, best match first (see
    /// ``enumerateKeysByRelevance(matching:columnWeights:_:)``).
    /// - Throws: as ``enumerateKeysByRelevance(matching:columnWeights:_:)``.
    public func keysByRelevance(matching expression: String, columnWeights: [String: Double] = [:]) throws
        -> [CollectionKey]
    {
        var keys: [CollectionKey] = []
        try enumerateKeysByRelevance(matching: expression, columnWeights: columnWeights) { collection, key, _, _ in
            keys.append(CollectionKey(collection: collection, key: key))
        }
        return keys
    }
}
