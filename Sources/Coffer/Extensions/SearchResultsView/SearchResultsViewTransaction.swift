/// A ``SearchResultsView`` inside one transaction, returned by
/// `tx.extension(name, as: SearchResultsViewTransaction.self)`: everything a ``ViewTransaction``
/// reads, the query and each result's snippet, and, in a read-write transaction, searching.
public final class SearchResultsViewTransaction: ViewTransaction {
    let configuration: SearchResultsView
    let searchStore: SearchResultsStore
    /// Rows whose change waits for the full-text table to catch up (see ``placesAtFlush``).
    var pendingRows: [Int64: PendingChange] = [:]
    /// The query, once read in this transaction (`.some(nil)`: no search yet).
    private var knownQuery: String??
    private var placesAtFlushCache: Bool?

    /// One match of the query.
    typealias Match = FullTextSearchTransaction.Match

    /// How a row changed before it could be placed.
    enum PendingChange {
        /// It entered the database or the parent view: a reader learns of it only if it is placed.
        case placed
        /// It changed in place: a reader learns of the update if it stays.
        case updated(ViewChangedParts)

        func merged(with other: PendingChange) -> PendingChange {
            switch (self, other) {
            case (.updated(let parts), .updated(let more)): .updated(parts.union(more))
            default: .placed
            }
        }
    }

    init(context: ExtensionContext, state: ViewConnectionState, configuration: SearchResultsView) {
        self.configuration = configuration
        self.searchStore = SearchResultsStore(context: context, isPersistent: configuration.isPersistent)
        super.init(context: context, state: state)
    }

    override var currentVersionTag: String { configuration.versionTag }

    /// The registered name of the full-text search the queries run on.
    public var fullTextSearchName: String { configuration.fullTextSearchName }

    /// The registered name of the parent view, or nil when the view groups and sorts the matches itself.
    public var parentViewName: String? { configuration.parentName }

    /// The query the results are for (YapDatabase's `query`), as this transaction's snapshot has
    /// it; nil before the first search.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func query() throws -> String? {
        if let knownQuery { return knownQuery }
        let query = try searchStore.query()
        knownQuery = .some(query)
        return query
    }

    /// The snippet of the result `key` in `collection`, or nil when it is not a result or the view
    /// keeps no snippets (``SearchResultsView/snippetOptions``).
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func snippet(forKey key: String, inCollection collection: String?) throws -> String? {
        guard configuration.snippetOptions != nil else { return nil }
        return try info(forKey: key, inCollection: collection)?.snippet
    }

    /// The BM25 relevance of the result `key` in `collection` (higher is better), or nil when it
    /// is not a result or the view is not ranked (``SearchResultsView/Source/ranked(_:columnWeights:)``).
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func relevance(forKey key: String, inCollection collection: String?) throws -> Double? {
        guard configuration.relevanceWeights != nil else { return nil }
        return try info(forKey: key, inCollection: collection)?.score
    }

    private func info(forKey key: String, inCollection collection: String?) throws -> SearchResultInfo? {
        guard let rowid = try context.rowid(forKey: key, inCollection: collection), try group(ofRow: rowid) != nil
        else { return nil }
        return try searchStore.info(ofRow: rowid)
    }

    // MARK: Searching

    /// Replaces the results with the rows matching `query` (YapDatabase's `performSearchFor:`).
    ///
    /// `query` uses SQLite's MATCH syntax; an empty query empties the view. Rows that matched
    /// before and still match stay where they are, so a reader's changes show only the rows that
    /// came and went. Every connection sees the new query once the transaction commits.
    /// - Complexity: the full-text query's cost, plus O(log n) per row that comes or goes.
    /// - Throws: ``DatabaseError`` `.invalidQuery` for a query SQLite cannot parse (nothing
    ///   changed then), `.misuse` in a read-only transaction, or what reading, the grouping and
    ///   the sorting throw.
    public func performSearch(for query: String) throws {
        _ = try replaceResults(with: query) { false }
    }

    /// Runs the latest query of `queue`, skipping those enqueued before it
    /// (YapDatabase's `performSearchWithQueue:`).
    ///
    /// While it runs, it looks every few hundred rows whether the search was abandoned
    /// (``SearchQueue/abortSearchInProgress(rollback:)``): it then stops, and either rolls the
    /// whole transaction back or commits the results found so far.
    /// - Returns: the query it ran, or nil when the queue was empty or the search was abandoned.
    /// - Throws: as ``performSearch(for:)``.
    @discardableResult
    public func performSearch(with queue: SearchQueue) throws -> String? {
        let transaction = try context.writeTransaction()
        guard let (query, ticket) = queue.takeLatest() else { return nil }
        // A query abandoned before its search began has no partial results to keep.
        if let request = queue.abortRequest(for: ticket) {
            if request == .rollback { transaction.rollback() }
            return nil
        }
        let finished = try replaceResults(with: query) { queue.abortRequest(for: ticket) != nil }
        guard !finished else { return query }
        if queue.abortRequest(for: ticket) == .rollback { transaction.rollback() }
        return nil
    }

    /// Replaces the results with the matches of `query`, asking `shouldAbort` as it goes.
    /// - Returns: false when `shouldAbort` stopped it.
    func replaceResults(with query: String, shouldAbort: () -> Bool) throws -> Bool {
        _ = try context.writeTransaction()
        try prepareToWrite()
        let matches = query.isEmpty ? [:] : try findMatches(query, shouldStop: shouldAbort)
        try searchStore.setQuery(query)
        knownQuery = .some(query)
        // Every row is compared with the new query below, so nothing waits any more.
        pendingRows = [:]
        if configuration.keepsResultInfo { try searchStore.removeAllInfo() }
        if matches.isEmpty || configuration.relevanceWeights != nil {
            // A ranked view's order depends on the new scores, so no row keeps its place.
            if try numberOfItemsInAllGroups() > 0 { try removeAllRows(recordingEachRow: !matches.isEmpty) }
            if matches.isEmpty { return true }
        }
        // The rows that no longer match leave, last first, so each index is the row's own.
        for group in try groups() {
            var leaving: [Int64] = []
            var staying: [Int64] = []
            try withList(group) { list in
                try list.enumerate { _, rowid, _ in
                    if matches[rowid] == nil { leaving.append(rowid) } else { staying.append(rowid) }
                }
            }
            for rowid in leaving.reversed() {
                guard let key = try key(ofRow: rowid) else { throw goneRow(in: group) }
                try remove(rowid, key: key, from: group)
            }
            for rowid in staying { try keepInfo(matches[rowid], ofRow: rowid) }
        }
        if configuration.parentName != nil { return try placeInParentOrder(matches, shouldAbort) }
        return try placeSorted(matches, shouldAbort)
    }

    /// Places the matches that are not shown yet where the parent has them.
    ///
    /// They are taken in the parent's order and merged into each group in one walk over its rows,
    /// which costs O(rows + arrivals) lookups of a parent index rather than a binary search each.
    private func placeInParentOrder(_ matches: [Int64: Match], _ shouldAbort: () -> Bool) throws -> Bool {
        let parent = try parent()
        var arriving: [String: [(index: Int, rowid: Int64)]] = [:]
        for rowid in matches.keys where try group(ofRow: rowid) == nil {
            guard let group = try parent.group(ofRow: rowid), configuration.allowedGroups.isAllowed(group),
                let index = try parent.withList(group, { try $0.index(of: rowid) })
            else { continue }
            arriving[group, default: []].append((index, rowid))
        }
        var placed = 0
        for (group, rows) in arriving.sorted(by: { $0.key < $1.key }) {
            var position = 0
            for arrival in rows.sorted(by: { $0.index < $1.index }) {
                placed += 1
                if placed % 64 == 0, shouldAbort() { return false }
                guard let key = try key(ofRow: arrival.rowid),
                    configuration.allowedCollections.isAllowed(key.collection)
                else { continue }
                let count = try numberOfItems(inGroup: group)
                while position < count,
                    try parentIndex(ofRowAt: position, inGroup: group, parent: parent) < arrival.index
                {
                    position += 1
                }
                try keepInfo(matches[arrival.rowid], ofRow: arrival.rowid)
                try insert(arrival.rowid, key: key, into: group, at: position)
                position += 1
            }
        }
        return true
    }

    /// Places the matches that are not shown yet by the view's grouping and its sorting (or
    /// relevance).
    ///
    /// Each group's arrivals are sorted in memory, then merged into the group in one walk over
    /// its rows: O(a log a + rows) comparisons, each row read once, rather than a binary search
    /// (and log n row reads) per arrival.
    private func placeSorted(_ matches: [Int64: Match], _ shouldAbort: () -> Bool) throws -> Bool {
        var arriving: [String: [ExtensionRow]] = [:]
        for rowid in matches.keys where try group(ofRow: rowid) == nil {
            guard let row = try rowForGrouping(rowid), let group = try ownGroup(of: row) else { continue }
            arriving[group, default: []].append(row)
        }
        let transaction = try context.transaction()
        var placed = 0
        for (group, rows) in arriving.sorted(by: { $0.key < $1.key }) {
            let sorted: [ExtensionRow]
            // Whether an arrival goes before the row at an index of the group.
            let goesBefore: (ExtensionRow, Int) throws -> Bool
            if let sorting {
                sorted = try rows.sorted { left, right in
                    let order = try sorting.compare(transaction, group, left, right)
                    return order == .orderedSame ? left.rowid < right.rowid : order == .orderedAscending
                }
                goesBefore = { arrival, index in
                    let other = try self.row(at: index, inGroup: group, reading: sorting.kind)
                    return try sorting.compare(transaction, group, arrival, other) == .orderedAscending
                }
            } else {
                let score = { (rowid: Int64) in matches[rowid]?.score ?? 0 }
                sorted = rows.sorted { rankedBefore(score($0.rowid), $0.rowid, score($1.rowid), $1.rowid) }
                goesBefore = { arrival, index in
                    guard let other = try self.withList(group, { try $0.rowid(at: index) }) else {
                        throw self.goneRow(in: group)
                    }
                    return self.rankedBefore(score(arrival.rowid), arrival.rowid, score(other), other)
                }
            }
            var position = 0
            for row in sorted {
                placed += 1
                if placed % 64 == 0, shouldAbort() { return false }
                let count = try numberOfItems(inGroup: group)
                while position < count, try !goesBefore(row, position) { position += 1 }
                try keepInfo(matches[row.rowid], ofRow: row.rowid)
                try insert(row.rowid, key: row.collectionKey, into: group, at: position)
                position += 1
            }
        }
        return true
    }

    private func keepInfo(_ match: Match?, ofRow rowid: Int64) throws {
        guard configuration.keepsResultInfo else { return }
        try searchStore.setInfo(match.map { SearchResultInfo(snippet: $0.snippet, score: $0.score) }, ofRow: rowid)
    }

    /// The matches of `query` with what the view keeps of each.
    private func findMatches(
        _ query: String, within rowids: ClosedRange<Int64>? = nil, shouldStop: () -> Bool = { false }
    ) throws -> [Int64: Match] {
        try fullTextSearch().matches(
            query, within: rowids, snippet: configuration.snippetOptions, relevance: configuration.relevanceWeights,
            shouldStop: shouldStop)
    }

    // MARK: Live updates

    /// Whether rows changed through the parent view are placed at the flush rather than at once:
    /// when the parent's changes come from a view registered before the full-text search, whose
    /// table then does not have the row's new text yet.
    var placesAtFlush: Bool {
        get throws {
            if let placesAtFlushCache { return placesAtFlushCache }
            guard let parent = configuration.parentName else {
                // The search is a dependency, so its hooks ran before this view's.
                placesAtFlushCache = false
                return false
            }
            let entries = try context.transaction().extensionEntries
            var root = parent
            // The view whose hooks start the chain of views this one follows.
            for _ in entries.indices {
                guard let entry = entries.first(where: { $0.name == root }),
                    let following = (entry.implementation as? any FollowingView)?.parentViewName, !following.isEmpty
                else { break }
                root = following
            }
            let searchPosition = entries.firstIndex { $0.name == configuration.fullTextSearchName } ?? entries.count
            let rootPosition = entries.firstIndex { $0.name == root } ?? -1
            let result = searchPosition > rootPosition
            placesAtFlushCache = result
            return result
        }
    }

    /// Notes that row `rowid` changed: it is placed, moved or removed against the query now, or
    /// at the flush when the full-text table may not have its text yet.
    func rowChanged(_ rowid: Int64, _ change: PendingChange) throws {
        guard let query = try query(), !query.isEmpty else { return }
        try prepareToWrite()
        if try placesAtFlush {
            pendingRows[rowid] = pendingRows[rowid].map { $0.merged(with: change) } ?? change
            return
        }
        if try usesProbe() {
            try resolve(rowid, change, match: probe(rowid, query: query))
        } else {
            let matches = try findMatches(query, within: rowid...rowid)
            try resolve(rowid, change, match: matches[rowid])
        }
    }

    // MARK: The probe

    /// The SQL of the probe table, an FTS table of the search's definition.
    private func probeSQL() throws -> FullTextSearchSQL {
        FullTextSearchSQL(
            registeredName: SearchResultsView.probeName(registeredName: registeredName),
            search: try fullTextSearch().search)
    }

    func createProbe() throws {
        guard configuration.isPersistent else { return }
        try context.tables.execute(probeSQL().derived.create)
    }

    /// Whether a written row is checked in the probe: a query matching many rows has a long
    /// doclist, which FTS4 walks whole even for a query narrowed to one docid.
    private func usesProbe() throws -> Bool {
        guard configuration.isPersistent, configuration.relevanceWeights == nil else { return false }
        return try numberOfItemsInAllGroups() >= configuration.probeThreshold
    }

    /// Row `rowid` as a match of `query` (with its snippet), or nil when it does not match:
    /// checked on a copy of its entry in the probe, whose doclists are one entry long.
    private func probe(_ rowid: Int64, query: String) throws -> Match? {
        let probe = try probeSQL()
        let search = try fullTextSearch()
        let columns = (["rowid"] + search.search.columns).map(ExtensionTables.quote).joined(separator: ", ")
        let source = ExtensionTables.quote(FullTextSearch.tableName(registeredName: search.registeredName))
        try context.tables.run(
            "INSERT INTO \(probe.derived.quotedTable) (\(columns)) SELECT \(columns) FROM \(source) WHERE \"rowid\" = ?",
            [.integer(rowid)])
        var match: Match?
        if let options = configuration.snippetOptions {
            try context.tables.query(probe.selectSnippets, try search.snippetArguments(options) + [.text(query)]) {
                row, stop in
                match = Match(snippet: row.text(at: 1), score: 0)
                stop = true
            }
        } else {
            try context.tables.query(probe.selectRowids, [.text(query)]) { _, stop in
                match = Match(snippet: "", score: 0)
                stop = true
            }
        }
        // Emptied at once: the probe never keeps a row's text (a failure above fails the
        // transaction, which takes the row back with it).
        try context.tables.run(probe.derived.deleteAll)
        return match
    }

    /// Places every row waiting for the full-text table, which is current now.
    func resolvePendingRows() throws {
        let rows = pendingRows
        pendingRows = [:]
        guard let first = rows.keys.min(), let last = rows.keys.max(), let query = try query(), !query.isEmpty
        else { return }
        let matches = try findMatches(query, within: first...last)
        for rowid in rows.keys.sorted() {
            if let change = rows[rowid] { try resolve(rowid, change, match: matches[rowid]) }
        }
    }

    /// Puts row `rowid` where it belongs now: in the view when it matches (`match` non-nil) and
    /// its group is allowed, out of it otherwise.
    private func resolve(_ rowid: Int64, _ change: PendingChange, match: Match?) throws {
        let current = try group(ofRow: rowid)
        let row = try rowForGrouping(rowid)
        var target: String?
        if let row, match != nil, configuration.allowedCollections.isAllowed(row.collection) {
            if configuration.parentName != nil {
                target = try parent().group(ofRow: rowid).flatMap {
                    configuration.allowedGroups.isAllowed($0) ? $0 : nil
                }
            } else {
                target = try ownGroup(of: row)
            }
        }
        guard let row else {
            // Gone from the database: its removal took it out already.
            return
        }
        let score = match?.score ?? 0
        if let current, current == target, let index = try withList(current, { try $0.index(of: rowid) }),
            try configuration.parentName != nil || staysInPlace(row, at: index, in: current, score: score)
        {
            try keepInfo(match, ofRow: rowid)
            if case .updated(let parts) = change {
                try noteUpdated(rowid, key: row.collectionKey, group: current, index: index, parts: parts)
            }
        } else {
            if let current { try remove(rowid, key: row.collectionKey, from: current) }
            // Kept before placing: a ranked view compares the scores it keeps.
            try keepInfo(target == nil ? nil : match, ofRow: rowid)
            if let target {
                if configuration.parentName != nil {
                    try insertInParentOrder(rowid, key: row.collectionKey, into: target, parent: parent())
                } else {
                    try insertSorted(row, into: target, score: score)
                }
            }
        }
    }

    private func goneRow(in group: String) -> DatabaseError {
        DatabaseError(.corrupt, "group \"\(group)\" of view \"\(registeredName)\" lists a row that is gone")
    }

    /// Drops the snippets and relevance of every row of `group`, which is about to be cleared.
    func forgetInfo(ofRowsIn group: String) throws {
        guard configuration.keepsResultInfo, try numberOfItems(inGroup: group) > 0 else { return }
        var rowids: [Int64] = []
        try withList(group) { list in try list.enumerate { _, rowid, _ in rowids.append(rowid) } }
        for rowid in rowids { try searchStore.setInfo(nil, ofRow: rowid) }
    }

    /// Takes row `rowid` (`key`) out of `group`, with its snippet.
    func leave(_ rowid: Int64, key: CollectionKey, from group: String) throws {
        try remove(rowid, key: key, from: group)
        if configuration.keepsResultInfo { try searchStore.setInfo(nil, ofRow: rowid) }
    }

    // MARK: Extensions this one builds on

    /// The full-text search the queries run on.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when none is registered under the name.
    func fullTextSearch() throws -> FullTextSearchTransaction {
        guard !configuration.fullTextSearchName.isEmpty else {
            throw DatabaseError(
                .extensionFailure,
                "search results view \"\(registeredName)\" names no full-text search: set fullTextSearchName to a registered FullTextSearch"
            )
        }
        return try context.transaction().extension(configuration.fullTextSearchName, as: FullTextSearchTransaction.self)
    }

    /// The parent view.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when the view has no parent, or it is not a view.
    func parent() throws -> ViewTransaction {
        guard let name = configuration.parentName, !name.isEmpty else {
            throw DatabaseError(.extensionFailure, "search results view \"\(registeredName)\" names no parent view")
        }
        return try context.transaction().extension(name, as: ViewTransaction.self)
    }

    /// Checks at registration that the extensions the view names exist and are of the right kinds.
    func checkConfiguration() throws {
        let search = try fullTextSearch()
        if configuration.parentName != nil { _ = try parent() }
        // A ranked view needs FTS4 and weights of columns the search has: say so now, not at the first search.
        if let weights = configuration.relevanceWeights { _ = try search.relevanceFunction(weights) }
    }

    // MARK: Placing rows

    private func key(ofRow rowid: Int64) throws -> CollectionKey? {
        try context.row(forRowid: rowid, readingObject: false, readingMetadata: false)?.collectionKey
    }

    /// Row `rowid` with what the grouping and sorting read (the key only over a parent view).
    private func rowForGrouping(_ rowid: Int64) throws -> ExtensionRow? {
        switch configuration.source {
        case .parentView:
            return try context.row(forRowid: rowid, readingObject: false, readingMetadata: false)
        case .grouping(let grouping, let sorting):
            return try context.row(
                forRowid: rowid, readingObject: grouping.readsObject || sorting.kind.readsObject,
                readingMetadata: grouping.readsMetadata || sorting.kind.readsMetadata)
        case .ranked(let grouping, _):
            return try context.row(
                forRowid: rowid, readingObject: grouping.readsObject, readingMetadata: grouping.readsMetadata)
        }
    }

    /// The group the view's own grouping gives `row`, if allowed.
    private func ownGroup(of row: ExtensionRow) throws -> String? {
        let grouping: ViewGrouping
        switch configuration.source {
        case .parentView: return nil
        case .grouping(let own, _), .ranked(let own, _): grouping = own
        }
        guard configuration.allowedCollections.isAllowed(row.collection) else { return nil }
        var group: String?
        try grouping.fill(&group, for: row, in: context.transaction())
        guard let group, configuration.allowedGroups.isAllowed(group) else { return nil }
        return group
    }

    private var sorting: ViewSorting? {
        if case .grouping(_, let sorting) = configuration.source { return sorting }
        return nil
    }

    /// Inserts `row` into `group` by the sorting (after the rows that compare the same), or by
    /// `score` in a ranked view.
    private func insertSorted(_ row: ExtensionRow, into group: String, score: Double) throws {
        guard let sorting else {
            try insertRanked(row, into: group, score: score)
            return
        }
        let transaction = try context.transaction()
        let count = try numberOfItems(inGroup: group)
        var (low, high) = (0, count)
        // Rows often arrive in sort order: one comparison with the last row places those.
        if count > 0,
            try sorting.compare(transaction, group, row, self.row(at: count - 1, inGroup: group, reading: sorting.kind))
                != .orderedAscending
        {
            low = count
        }
        while low < high {
            let middle = (low + high) / 2
            let other = try self.row(at: middle, inGroup: group, reading: sorting.kind)
            if try sorting.compare(transaction, group, row, other) == .orderedAscending {
                high = middle
            } else {
                low = middle + 1
            }
        }
        try insert(row.rowid, key: row.collectionKey, into: group, at: low)
    }

    /// Whether the changed `row`, at `index` of `group`, still sorts between its neighbours (or,
    /// ranked, still has the score it is placed by).
    private func staysInPlace(_ row: ExtensionRow, at index: Int, in group: String, score: Double) throws -> Bool {
        guard let sorting else { return try searchStore.info(ofRow: row.rowid)?.score == score }
        let transaction = try context.transaction()
        if index > 0,
            try sorting.compare(transaction, group, self.row(at: index - 1, inGroup: group, reading: sorting.kind), row)
                == .orderedDescending
        {
            return false
        }
        if index + 1 < (try numberOfItems(inGroup: group)),
            try sorting.compare(transaction, group, row, self.row(at: index + 1, inGroup: group, reading: sorting.kind))
                == .orderedDescending
        {
            return false
        }
        return true
    }

    /// Whether a row with `score` and `rowid` comes before one with `otherScore` and `otherRowid`:
    /// the better score first, ties in rowid order.
    private func rankedBefore(_ score: Double, _ rowid: Int64, _ otherScore: Double, _ otherRowid: Int64) -> Bool {
        score != otherScore ? score > otherScore : rowid < otherRowid
    }

    /// Inserts `row` into `group` of a ranked view by binary search on the kept scores.
    private func insertRanked(_ row: ExtensionRow, into group: String, score: Double) throws {
        func before(_ index: Int) throws -> Bool {
            guard let other = try withList(group, { try $0.rowid(at: index) }) else { throw goneRow(in: group) }
            let otherScore = try searchStore.info(ofRow: other)?.score ?? 0
            return rankedBefore(score, row.rowid, otherScore, other)
        }
        let count = try numberOfItems(inGroup: group)
        var (low, high) = (0, count)
        if count > 0, try !before(count - 1) { low = count }
        while low < high {
            let middle = (low + high) / 2
            if try before(middle) { high = middle } else { low = middle + 1 }
        }
        try insert(row.rowid, key: row.collectionKey, into: group, at: low)
    }
}
