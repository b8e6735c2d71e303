/// A view inside one transaction, returned by `tx.extension(name, as: AutoViewTransaction.self)`:
/// its groups and their rows in order, as the transaction's snapshot has them (with its own
/// uncommitted writes).
///
/// Valid only inside the transaction's closure; every method throws `misuse` afterwards.
public final class AutoViewTransaction {
    let context: ExtensionContext
    let state: AutoViewConnectionState
    let store: any ViewStore
    /// The layout this transaction works on (loaded on first use).
    var working: ViewLayout?
    /// Groups opened for changes.
    var lists: [String: ViewGroupList] = [:]
    /// The view's changes so far, in order.
    var records: [ViewChangeRecord] = []
    /// The group of each row this transaction moved (nil: out of the view).
    var groupOverride: [Int64: String?] = [:]
    /// Groups and pages written so far (for other connections to read again).
    var writtenGroups: Set<String> = []
    var writtenPages: Set<ViewPageTree.PageID> = []
    var nextPageID: ViewPageTree.PageID?
    /// Every row left the view in this transaction: other connections forget what they read.
    var clearedAll = false
    /// Groups whose trees this write took out of the connection's layout.
    var checkedOutGroups: Set<String> = []

    init(context: ExtensionContext, state: AutoViewConnectionState) {
        self.context = context
        self.state = state
        self.store =
            state.view.isPersistent
            ? ViewTableStore(tables: context.tables, registeredName: context.registeredName)
            : ViewMemoryStore(context: context)
    }

    /// The name the view is registered under.
    public var registeredName: String { context.registeredName }
    /// The version tag the view was registered with.
    public var versionTag: String { state.view.versionTag }

    // MARK: Groups

    /// The names of the groups that hold rows, sorted.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func groups() throws -> [String] {
        try trees().filter { $0.value.rowCount > 0 }.keys.sorted()
    }

    /// The number of groups that hold rows.
    /// - Throws: as ``groups()``.
    public func numberOfGroups() throws -> Int {
        try groups().count
    }

    /// The number of rows in each group, as ``ViewMappings/update(groupCounts:allGroups:)`` takes them.
    /// - Throws: as ``groups()``.
    public func groupCounts() throws -> [String: Int] {
        try trees().compactMapValues { $0.rowCount > 0 ? $0.rowCount : nil }
    }

    /// The number of rows in `group` (0 when there is no such group).
    /// - Throws: as ``groups()``.
    public func numberOfItems(inGroup group: String) throws -> Int {
        if let list = lists[group] { return list.tree.rowCount }
        return try layout().trees[group]?.rowCount ?? 0
    }

    /// The number of rows in the view.
    /// - Throws: as ``groups()``.
    public func numberOfItemsInAllGroups() throws -> Int {
        try trees().values.reduce(0) { $0 + $1.rowCount }
    }

    // MARK: Rows

    /// The collection and key of the row at `index` in `group`, or nil when out of range.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: as ``groups()``.
    public func key(at index: Int, inGroup group: String) throws -> CollectionKey? {
        guard let rowid = try withList(group, { try $0.rowid(at: index) }) else { return nil }
        return try context.row(forRowid: rowid, readingObject: false, readingMetadata: false)?.collectionKey
    }

    /// The object of the row at `index` in `group`, or nil when out of range.
    /// - Throws: as ``groups()``, and `.serialization` when the object does not decode.
    public func object(at index: Int, inGroup group: String) throws -> (any Sendable)? {
        guard let rowid = try withList(group, { try $0.rowid(at: index) }) else { return nil }
        return try context.row(forRowid: rowid, readingObject: true, readingMetadata: false)?.object.value()
    }

    /// The group of the row `key` in `collection`, or nil when it is not in the view.
    /// - Throws: as ``groups()``.
    public func group(forKey key: String, inCollection collection: String?) throws -> String? {
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else { return nil }
        return try group(ofRow: rowid)
    }

    /// The group and index of the row `key` in `collection`, or nil when it is not in the view.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: as ``groups()``.
    public func index(forKey key: String, inCollection collection: String?) throws -> (group: String, index: Int)? {
        guard let rowid = try context.rowid(forKey: key, inCollection: collection),
            let group = try group(ofRow: rowid),
            let index = try withList(group, { try $0.index(of: rowid) })
        else { return nil }
        return (group, index)
    }

    /// Calls `body` with the collection, key and index of each row of `group`, in order (or
    /// backwards), from `start` on, until it sets `stop`.
    /// - Throws: as ``groups()``, or whatever `body` throws.
    public func enumerateKeys(
        inGroup group: String, from start: Int? = nil, reverse: Bool = false,
        _ body: (_ row: CollectionKey, _ index: Int, _ stop: inout Bool) throws -> Void
    ) throws {
        let count = try numberOfItems(inGroup: group)
        guard count > 0 else { return }
        let first = start ?? (reverse ? count - 1 : 0)
        var rowids: [(Int, Int64)] = []
        try withList(group) { list in
            try list.enumerate(from: first, reverse: reverse) { index, rowid, _ in rowids.append((index, rowid)) }
        }
        var stop = false
        for (index, rowid) in rowids {
            guard let row = try context.row(forRowid: rowid, readingObject: false, readingMetadata: false) else {
                continue
            }
            try body(row.collectionKey, index, &stop)
            if stop { return }
        }
    }

    // MARK: Layout

    /// The layout at this transaction's snapshot, read or refreshed as needed.
    ///
    /// A read uses the connection's layout itself; a write keeps a copy of it (``working``),
    /// which its commit makes the connection's.
    func layout() throws -> ViewLayout {
        if let working { return working }
        _ = try context.transaction()
        try refreshConnectionLayout()
        let layout = state.layout ?? ViewLayout()
        if context.isReadWrite { working = layout }
        return layout
    }

    /// Brings the connection's layout to its snapshot, in place: read whole at first use, and
    /// the groups another connection's changes did not fit read again.
    private func refreshConnectionLayout() throws {
        guard let stale = state.layout?.staleGroups else {
            let records = try store.pageRecords(inGroup: nil)
            var layout = ViewLayout(trees: try store.trees(from: records, view: registeredName))
            for record in records { layout.groupOfPage[record.page] = record.group }
            state.layout = layout
            return
        }
        guard !stale.isEmpty else { return }
        for group in stale {
            let records = try store.pageRecords(inGroup: group)
            state.layout?.trees[group] = try store.trees(from: records, view: registeredName)[group]
            for record in records { state.layout?.groupOfPage[record.page] = group }
        }
        state.layout?.staleGroups = []
    }

    /// Each group's page tree with this transaction's own changes: the groups it opened are
    /// ahead of the layout until the commit.
    private func trees() throws -> [String: ViewPageTree] {
        var trees = try layout().trees
        for (group, list) in lists { trees[group] = list.tree }
        return trees
    }

    /// The group row `rowid` is in, or nil.
    func group(ofRow rowid: Int64) throws -> String? {
        if let moved = groupOverride[rowid] { return moved }
        // After a remove-all the store's map is empty already: no row is found there.
        guard let page = try store.pageOfRow(rowid) else { return nil }
        return try layout().groupOfPage[page]
    }

    /// Runs `body` on the list of `group`, opening it from the layout first.
    func withList<T>(_ group: String, _ body: (inout ViewGroupList) throws -> T) throws -> T {
        var list = try lists.removeValue(forKey: group) ?? makeList(group)
        defer { lists[group] = list }
        return try body(&list)
    }

    private func makeList(_ group: String) throws -> ViewGroupList {
        let tree: ViewPageTree
        if context.isReadWrite {
            _ = try layout()
            // The list will change the tree: taken out of both layouts, it has one owner and
            // changes in place (a rollback has the connection read the group again).
            tree = working?.trees.removeValue(forKey: group) ?? ViewPageTree()
            state.layout?.trees.removeValue(forKey: group)
            checkedOutGroups.insert(group)
        } else {
            tree = try layout().trees[group] ?? ViewPageTree()
        }
        let store = store
        return ViewGroupList(
            group: group, tree: tree,
            loadPage: { [weak state, isReadWrite = context.isReadWrite] id in
                if let cached = state?.layout?.pages[id] { return cached }
                let page = try store.page(id)
                // Pages read in a write may be rolled back: only a read's pages are kept.
                if !isReadWrite { state?.layout?.pages[id] = page }
                return page
            },
            pageOfRow: { try store.pageOfRow($0) },
            newPageID: { [unowned self] in allocatePageID() })
    }

    /// The row at `index` of `group`, reading what `kind` needs (through the caches).
    /// - Throws: ``DatabaseError`` `.corrupt` when the view lists a row that is gone, or what reading throws.
    func row(at index: Int, inGroup group: String, reading kind: ViewGrouping.Kind) throws -> ExtensionRow {
        guard let rowid = try withList(group, { try $0.rowid(at: index) }),
            let row = try context.row(
                forRowid: rowid, readingObject: kind.readsObject, readingMetadata: kind.readsMetadata)
        else {
            throw DatabaseError(.corrupt, "group \"\(group)\" of view \"\(registeredName)\" lists a row that is gone")
        }
        return row
    }

    /// Reads the largest page id before the first change, so new pages get fresh ids.
    func prepareToWrite() throws {
        if nextPageID == nil { nextPageID = try store.largestPageID() }
    }

    private func allocatePageID() -> ViewPageTree.PageID {
        let next = (nextPageID ?? 0) + 1
        nextPageID = next
        return next
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension AutoViewTransaction: Sendable {}
