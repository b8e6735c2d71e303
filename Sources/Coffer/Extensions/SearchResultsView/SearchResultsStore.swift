/// What a search view keeps of one result beside its place: its snippet and its relevance.
struct SearchResultInfo: Sendable, Equatable {
    var snippet: String
    var score: Double
}

/// Where a search view keeps its query and each result's snippet and relevance: a record and a
/// table in the file for a persistent view, memory tables of its registration otherwise.
///
/// Both are read at the transaction's snapshot, so a connection sees the query and the snippets
/// that go with the rows it sees.
struct SearchResultsStore {
    let context: ExtensionContext
    let isPersistent: Bool
    private let resultTable: String

    /// The record holding the query.
    static let queryKey = "query"

    init(context: ExtensionContext, isPersistent: Bool) {
        self.context = context
        self.isPersistent = isPersistent
        resultTable = ExtensionTables.quote(SearchResultsView.resultTableName(registeredName: context.registeredName))
    }

    func createTables() throws {
        guard isPersistent else { return }
        try context.tables.execute(
            "CREATE TABLE IF NOT EXISTS \(resultTable) (\"rowid\" INTEGER PRIMARY KEY, \"snippet\" TEXT NOT NULL, \"score\" REAL NOT NULL)"
        )
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

    // MARK: Results

    func info(ofRow rowid: Int64) throws -> SearchResultInfo? {
        if isPersistent {
            var info: SearchResultInfo?
            try context.tables.query(
                "SELECT \"snippet\", \"score\" FROM \(resultTable) WHERE \"rowid\" = ?", [.integer(rowid)]
            ) { row, stop in
                info = SearchResultInfo(snippet: row.text(at: 0), score: row.double(at: 1))
                stop = true
            }
            return info
        }
        return try value(forKey: rowid, in: infoTable())
    }

    /// Sets (or, with nil, removes) what is kept of row `rowid`.
    func setInfo(_ info: SearchResultInfo?, ofRow rowid: Int64) throws {
        if isPersistent {
            if let info {
                try context.tables.run(
                    "INSERT OR REPLACE INTO \(resultTable) (\"rowid\", \"snippet\", \"score\") VALUES (?, ?, ?)",
                    [.integer(rowid), .text(info.snippet), .real(info.score)])
            } else {
                try context.tables.run("DELETE FROM \(resultTable) WHERE \"rowid\" = ?", [.integer(rowid)])
            }
            return
        }
        try mapped {
            let table = try context.writeView(of: infoTable())
            if let info { try table.setValue(info, forKey: rowid) } else { try table.removeValue(forKey: rowid) }
        }
    }

    func removeAllInfo() throws {
        if isPersistent {
            try context.tables.run("DELETE FROM \(resultTable)")
        } else {
            try mapped { try context.writeView(of: infoTable()).removeAll() }
        }
    }

    /// The number of rows with something kept.
    func infoCount() throws -> Int {
        if isPersistent {
            return Int(try context.tables.scalar("SELECT COUNT(*) FROM \(resultTable)")?.int64Value ?? 0)
        }
        return try mapped {
            context.isReadWrite
                ? try context.writeView(of: infoTable()).count : try context.readView(of: infoTable()).count
        }
    }

    // MARK: Memory tables

    private func queryTable() throws -> MemoryTable<String, String> {
        try context.registration.memoryTable(named: "query")
    }

    private func infoTable() throws -> MemoryTable<Int64, SearchResultInfo> {
        try context.registration.memoryTable(named: "result")
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
