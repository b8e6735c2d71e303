/// Where a search view keeps its query and its snippets: a record and a table in the file for a
/// persistent view, memory tables of its registration otherwise.
///
/// Both are read at the transaction's snapshot, so a connection sees the query and the snippets
/// that go with the rows it sees.
struct SearchResultsStore {
    let context: ExtensionContext
    let isPersistent: Bool
    private let snippetTable: String

    /// The record holding the query.
    static let queryKey = "query"

    init(context: ExtensionContext, isPersistent: Bool) {
        self.context = context
        self.isPersistent = isPersistent
        snippetTable = ExtensionTables.quote(SearchResultsView.snippetTableName(registeredName: context.registeredName))
    }

    func createTables() throws {
        guard isPersistent else { return }
        try context.tables.execute(
            "CREATE TABLE IF NOT EXISTS \(snippetTable) (\"rowid\" INTEGER PRIMARY KEY, \"snippet\" TEXT NOT NULL)")
    }

    // MARK: Query

    /// The query the results are for; nil before the first search.
    func query() throws -> String? {
        if isPersistent { return try context.tables.record(forKey: Self.queryKey)?.stringValue }
        return try value(forKey: Self.queryKey, in: queryTable())
    }

    func setQuery(_ query: String) throws {
        if isPersistent {
            try context.tables.setRecord(.text(query), forKey: Self.queryKey)
        } else {
            try mapped { try context.writeView(of: queryTable()).setValue(query, forKey: Self.queryKey) }
        }
    }

    // MARK: Snippets

    func snippet(ofRow rowid: Int64) throws -> String? {
        if isPersistent {
            return try context.tables.scalar(
                "SELECT \"snippet\" FROM \(snippetTable) WHERE \"rowid\" = ?", [.integer(rowid)])?.stringValue
        }
        return try value(forKey: rowid, in: snippetsTable())
    }

    /// Sets (or, with nil, removes) the snippet of row `rowid`.
    func setSnippet(_ snippet: String?, ofRow rowid: Int64) throws {
        if isPersistent {
            if let snippet {
                try context.tables.run(
                    "INSERT OR REPLACE INTO \(snippetTable) (\"rowid\", \"snippet\") VALUES (?, ?)",
                    [.integer(rowid), .text(snippet)])
            } else {
                try context.tables.run("DELETE FROM \(snippetTable) WHERE \"rowid\" = ?", [.integer(rowid)])
            }
            return
        }
        try mapped {
            let table = try context.writeView(of: snippetsTable())
            if let snippet { try table.setValue(snippet, forKey: rowid) } else { try table.removeValue(forKey: rowid) }
        }
    }

    func removeAllSnippets() throws {
        if isPersistent {
            try context.tables.run("DELETE FROM \(snippetTable)")
        } else {
            try mapped { try context.writeView(of: snippetsTable()).removeAll() }
        }
    }

    /// The number of rows with a snippet.
    func snippetCount() throws -> Int {
        if isPersistent {
            return Int(try context.tables.scalar("SELECT COUNT(*) FROM \(snippetTable)")?.int64Value ?? 0)
        }
        return try mapped {
            context.isReadWrite
                ? try context.writeView(of: snippetsTable()).count : try context.readView(of: snippetsTable()).count
        }
    }

    // MARK: Memory tables

    private func queryTable() throws -> MemoryTable<String, String> {
        try context.registration.memoryTable(named: "query")
    }

    private func snippetsTable() throws -> MemoryTable<Int64, String> {
        try context.registration.memoryTable(named: "snippet")
    }

    private func value<Key, Value>(forKey key: Key, in table: MemoryTable<Key, Value>) throws -> Value? {
        try mapped {
            context.isReadWrite
                ? try context.writeView(of: table).value(forKey: key)
                : try context.readView(of: table).value(forKey: key)
        }
    }

    /// `body`'s result, with a memory table's refusal reported as the view's failure.
    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MemoryTableError {
            throw DatabaseError(
                .extensionFailure, "memory table of search view \"\(context.registeredName)\": \(error)")
        }
    }
}
