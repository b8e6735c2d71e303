/// Searching with SQLite's MATCH syntax (https://sqlite.org/fts3.html#full_text_index_queries).
///
/// The expression is bound as a value, never written into SQL. Matches come in rowid order.
/// Each enumeration closure gets a `stop` flag; changing the database inside one without setting
/// `stop` throws `mutationDuringEnumeration`.
extension FullTextSearchTransaction {
    /// Calls `body` with the collection and key of each row matching `expression`.
    /// - Complexity: the full-text query's cost plus one primary-key lookup per match.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for an expression SQLite cannot parse, `.misuse`
    ///   after the transaction ended, or whatever `body` throws.
    public func enumerateKeys(
        matching expression: String, _ body: (_ collection: String, _ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(expression, snippet: nil, object: false, metadata: false) { ck, _, _, _, stop in
            try body(ck.collection, ck.key, &stop)
        }
    }

    /// Calls `body` with the collection, key and object of each row matching `expression`.
    /// - Throws: as ``enumerateKeys(matching:_:)``, and `.serialization` when an object does not decode.
    public func enumerateKeysAndObjects(
        matching expression: String,
        _ body: (_ collection: String, _ key: String, _ object: any Sendable, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(expression, snippet: nil, object: true, metadata: false) { ck, object, _, _, stop in
            guard let object else { return }
            try body(ck.collection, ck.key, object, &stop)
        }
    }

    /// Calls `body` with the collection, key and metadata of each row matching `expression`.
    /// - Throws: as ``enumerateKeys(matching:_:)``, and `.serialization` when metadata does not decode.
    public func enumerateKeysAndMetadata(
        matching expression: String,
        _ body: (_ collection: String, _ key: String, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(expression, snippet: nil, object: false, metadata: true) { ck, _, metadata, _, stop in
            try body(ck.collection, ck.key, metadata, &stop)
        }
    }

    /// Calls `body` with the collection, key, object and metadata of each row matching `expression`.
    /// - Throws: as ``enumerateKeysAndObjects(matching:_:)``.
    public func enumerateRows(
        matching expression: String,
        _ body: (
            _ collection: String, _ key: String, _ object: any Sendable, _ metadata: (any Sendable)?, _ stop: inout Bool
        ) throws -> Void
    ) throws {
        try enumerate(expression, snippet: nil, object: true, metadata: true) { ck, object, metadata, _, stop in
            guard let object else { return }
            try body(ck.collection, ck.key, object, metadata, &stop)
        }
    }

    /// Calls `body` with a snippet of the matching text and the collection and key of each match.
    ///
    /// ```swift
    /// try search.enumerateKeys(matching: "encrypt*", snippet: .init(startMatch: "[", endMatch: "]")) {
    ///     snippet, collection, key, stop in print(snippet)   // "…files are [encrypted] page by page…"
    /// }
    /// ```
    /// - Throws: ``DatabaseError`` `.invalidQuery` for an unknown snippet column, a token count
    ///   outside 1…64 or an expression SQLite cannot parse; `.misuse`; or whatever `body` throws.
    public func enumerateKeys(
        matching expression: String, snippet options: FullTextSearch.SnippetOptions,
        _ body: (_ snippet: String, _ collection: String, _ key: String, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerate(expression, snippet: options, object: false, metadata: false) { ck, _, _, snippet, stop in
            try body(snippet, ck.collection, ck.key, &stop)
        }
    }

    /// Calls `body` with a snippet and the collection, key and object of each match.
    /// - Throws: as ``enumerateKeys(matching:snippet:_:)``, and `.serialization`.
    public func enumerateKeysAndObjects(
        matching expression: String, snippet options: FullTextSearch.SnippetOptions,
        _ body: (_ snippet: String, _ collection: String, _ key: String, _ object: any Sendable, _ stop: inout Bool)
            throws -> Void
    ) throws {
        try enumerate(expression, snippet: options, object: true, metadata: false) { ck, object, _, snippet, stop in
            guard let object else { return }
            try body(snippet, ck.collection, ck.key, object, &stop)
        }
    }

    /// Calls `body` with a snippet and the collection, key, object and metadata of each match.
    /// - Throws: as ``enumerateKeys(matching:snippet:_:)``, and `.serialization`.
    public func enumerateRows(
        matching expression: String, snippet options: FullTextSearch.SnippetOptions,
        _ body: (
            _ snippet: String, _ collection: String, _ key: String, _ object: any Sendable, _ metadata: (any Sendable)?,
            _ stop: inout Bool
        ) throws -> Void
    ) throws {
        try enumerate(expression, snippet: options, object: true, metadata: true) {
            ck, object, metadata, snippet, stop in
            guard let object else { return }
            try body(snippet, ck.collection, ck.key, object, metadata, &stop)
        }
    }

    /// The collection and key of every row matching `expression`, in rowid order.
    /// - Complexity: as ``enumerateKeys(matching:_:)``; O(matches) memory.
    /// - Throws: as ``enumerateKeys(matching:_:)``.
    public func keys(matching expression: String) throws -> [CollectionKey] {
        var keys: [CollectionKey] = []
        try enumerateKeys(matching: expression) { collection, key, _ in
            keys.append(CollectionKey(collection: collection, key: key))
        }
        return keys
    }

    /// The number of rows matching `expression`.
    /// - Complexity: the full-text query's cost; no row is read or decoded.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for an expression SQLite cannot parse, `.misuse`.
    public func count(matching expression: String) throws -> Int {
        try checkQueryable()
        return Int(try context.tables.scalar(sql.count, [.text(expression)])?.int64Value ?? 0)
    }

    /// A snippet of the row `key` in `collection` for `expression`, or nil when that row does not match.
    /// - Throws: as ``enumerateKeys(matching:snippet:_:)``.
    public func snippet(
        forKey key: String, inCollection collection: String?, matching expression: String,
        options: FullTextSearch.SnippetOptions = .init()
    ) throws -> String? {
        try checkQueryable()
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else { return nil }
        let arguments = try snippetArguments(options) + [.text(expression), .integer(rowid)]
        return try context.tables.scalar(sql.snippetForRowid, arguments)?.stringValue
    }

    // MARK: Running

    private func enumerate(
        _ expression: String, snippet options: FullTextSearch.SnippetOptions?, object: Bool, metadata: Bool,
        _ body: (CollectionKey, (any Sendable)?, (any Sendable)?, String, inout Bool) throws -> Void
    ) throws {
        try checkQueryable()
        let query =
            if let options {
                ExtensionQuery(sql.selectSnippets, arguments: try snippetArguments(options) + [.text(expression)])
            } else {
                ExtensionQuery(sql.selectRowids, arguments: [.text(expression)])
            }
        let withSnippet = options != nil
        try context.enumerateMatchedRows(query, readingObject: object, readingMetadata: metadata) { row, stop in
            try body(row.collectionKey, row.object, row.metadata, withSnippet ? row.columns.text(at: 1) : "", &stop)
        }
    }

    /// The five `snippet()` arguments in the module's order.
    func snippetArguments(_ options: FullTextSearch.SnippetOptions) throws -> [DatabaseValue] {
        guard (1...64).contains(options.tokenCount) else {
            throw DatabaseError.invalidQuery("a snippet's token count must be within 1...64")
        }
        var column: Int64 = -1
        if let name = options.column {
            guard let position = search.columns.firstIndex(of: name) else {
                throw DatabaseError.invalidQuery("full-text search \"\(registeredName)\" has no column \"\(name)\"")
            }
            column = Int64(position)
        }
        let markers: [DatabaseValue] = [.text(options.startMatch), .text(options.endMatch), .text(options.ellipsis)]
        if sql.version == .fts5 {
            return [.integer(column)] + markers + [.integer(Int64(options.tokenCount))]
        }
        return markers + [.integer(column), .integer(Int64(options.tokenCount))]
    }
}
