import Coffer
import Foundation

/// Q1f, Q1p, W1q and W1qa: what a SearchResultsView costs a search and a write.
///
/// Every database holds N notes (N = the run's record count) in the collection `notes`, note i
/// reading "note i about word<i % 100> in encrypted storage", so each word matches N / 100 notes
/// (1,000 at N = 100,000), indexed by a FullTextSearch of one column, all written in one
/// transaction (untimed). Q1f times `performSearch(for:)` in a search view with its own grouping
/// (one group, notes in key order), Q1p in one over a parent AutoView (the same order): each
/// timed search is a read-write transaction, commit included, that replaces the previous word's
/// N / 100 results by the next word's; the figure is the median of `searchRepetitions`. W1q times
/// `insertCount` one-row transactions, each inserting a new note (one in a hundred matches the
/// live query), into the database with the own-grouping view live on "word7", and the same into a
/// database with only the FullTextSearch: `vs_fts_only` is the ratio of their times per insert.
/// W1qa does the same after a search for "encrypted", which every note matches (N results), so
/// every insert is placed in the view and the live query's doclist is N entries long.
struct SearchResultsSuite: BenchmarkSuite {
    let implementation = "CofferSearch"
    let workloads = [WorkloadInfo("Q1f"), WorkloadInfo("Q1p"), WorkloadInfo("W1q"), WorkloadInfo("W1qa")]

    /// The collection of the notes.
    static let collection = "notes"
    /// How many timed searches Q1f and Q1p run.
    static let searchRepetitions = 21
    /// How many one-row transactions W1q times on each database.
    static let insertCount = 1000

    /// The databases of the suite.
    enum Setup: String {
        /// The FullTextSearch alone.
        case searchOnly = "fts"
        /// The FullTextSearch and a search view with its own grouping.
        case ownGrouping = "own"
        /// The FullTextSearch, an AutoView and a search view over it.
        case overParent = "parent"
    }

    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        report.notes = [
            (
                key: "search",
                value: "notes=N,word<i%100>-in-each,FTS4(text),Q1f=own-grouping-view,Q1p=view-over-AutoView,"
                    + "median-of-\(Self.searchRepetitions)-searches-each-replacing-N/100-results,"
                    + "W1q=\(Self.insertCount)-one-row-transactions-with-the-view-live-vs-FTS-only,"
                    + "W1qa=the-same-with-a-query-every-note-matches"
            )
        ]
        let count = context.records.users.count
        let insertWorkloads = ["W1q", "W1qa"].filter(selected.contains)
        if selected.contains("Q1f") || !insertWorkloads.isEmpty {
            try withDatabase(.ownGrouping, count: count, context: context) { connection in
                if selected.contains("Q1f") { report.results.append(try searches("Q1f", connection, count: count)) }
                guard !insertWorkloads.isEmpty else { return }
                let alone = try withDatabase(.searchOnly, count: count, context: context) {
                    try inserts($0, from: count, query: nil)
                }
                var next = count
                for id in insertWorkloads {
                    let query = id == "W1q" ? ("word7", count / 100 + (7 < count % 100 ? 1 : 0)) : ("encrypted", next)
                    let live = try inserts(connection, from: next, query: query)
                    next += Self.insertCount
                    var result = WorkloadResult(id: id, ops: Self.insertCount, seconds: live)
                    result.extra.append((name: "fts_only_seconds", value: String(format: "%.4f", alone)))
                    result.extra.append((name: "vs_fts_only", value: String(format: "%.3f", live / alone)))
                    report.results.append(result)
                }
            }
        }
        if selected.contains("Q1p") {
            try withDatabase(.overParent, count: count, context: context) { connection in
                report.results.append(try searches("Q1p", connection, count: count))
            }
        }
        return report
    }

    /// Opens a new database set up as `setup` with the notes, runs `body` on a connection, and
    /// waits until the database is released.
    private func withDatabase<T>(
        _ setup: Setup, count: Int, context: SuiteContext, _ body: (Connection) throws -> T
    ) throws -> T {
        let url = context.directory.appendingPathComponent("search-\(setup.rawValue).sqlite")
        func session() throws -> (T, ReleaseWatcher) {
            let database = try CofferStore.open(url, context.configuration.scaled(to: count), run: context.options)
            try database.register(
                FullTextSearch(
                    columns: ["text"], handler: .object(String.self) { row, text in text["text"] = row.object },
                    allowedCollections: .only([Self.collection])),
                withName: "fts")
            let byKey = ViewSorting.key { _, left, right in
                left.key < right.key ? .orderedAscending : left.key > right.key ? .orderedDescending : .orderedSame
            }
            switch setup {
            case .searchOnly:
                break
            case .ownGrouping:
                try database.register(
                    SearchResultsView(
                        fullTextSearchName: "fts", source: .grouping(.key { _, group in group = "" }, sorting: byKey),
                        allowedCollections: .only([Self.collection])),
                    withName: "results")
            case .overParent:
                try database.register(
                    AutoView(
                        grouping: .key { _, group in group = "" }, sorting: byKey,
                        allowedCollections: .only([Self.collection])),
                    withName: "notes")
                try database.register(
                    SearchResultsView(fullTextSearchName: "fts", source: .parentView("notes")), withName: "results")
            }
            let connection = try database.newConnection(config: CofferStore.uncached)
            try connection.readWrite { tx in
                for index in 0..<count {
                    try tx.setObject(
                        "note \(index) about word\(index % 100) in encrypted storage", forKey: Self.key(index),
                        inCollection: Self.collection)
                }
            }
            return (try body(connection), ReleaseWatcher(database))
        }
        let (value, watcher) = try session()
        try watcher.waitForRelease()
        return value
    }

    private static func key(_ index: Int) -> String {
        "note" + String(index)
    }

    /// The median time of a search that replaces one word's results by another's.
    private func searches(_ id: String, _ connection: Connection, count: Int) throws -> WorkloadResult {
        try search(connection, "word0", expecting: (count + 99) / 100)
        var times: [Double] = []
        for repetition in 1...Self.searchRepetitions {
            let word = repetition % 100
            let expected = count / 100 + (word < count % 100 ? 1 : 0)
            times.append(try Stopwatch.measure { try search(connection, "word\(word)", expecting: expected) }.seconds)
        }
        times.sort()
        var result = WorkloadResult(id: id, ops: 1, seconds: times[times.count / 2])
        result.extra.append((name: "results", value: String(count / 100)))
        return result
    }

    private func search(_ connection: Connection, _ word: String, expecting expected: Int) throws {
        let found = try connection.readWrite { tx in
            let view = try tx.extension("results", as: SearchResultsViewTransaction.self)
            try view.performSearch(for: word)
            return try view.numberOfItemsInAllGroups()
        }
        guard found == expected else {
            throw BenchError(.checkMismatch, "CofferSearch: \(word) found \(found) notes, not \(expected)")
        }
    }

    /// The time of `insertCount` one-row transactions of notes `first`…, with the view live on
    /// `query` (searched first, untimed, expecting its number of results) when given.
    private func inserts(_ connection: Connection, from first: Int, query: (String, Int)?) throws -> Double {
        if let (word, expected) = query { try search(connection, word, expecting: expected) }
        return try Stopwatch.measure {
            for index in first..<(first + Self.insertCount) {
                try connection.readWrite { tx in
                    try tx.setObject(
                        "note \(index) about word\(index % 100) in encrypted storage", forKey: Self.key(index),
                        inCollection: Self.collection)
                }
            }
        }.seconds
    }
}
