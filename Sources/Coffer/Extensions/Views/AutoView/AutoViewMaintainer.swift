/// The platform's side of an ``AutoView`` in one transaction: every write hook places, moves or
/// removes its row, and the flush writes the changed pages; readers get the ``AutoViewTransaction``.
final class AutoViewMaintainer: ExtensionTransaction {
    let view: AutoViewTransaction

    init(_ view: AutoViewTransaction) {
        self.view = view
    }

    var queryInterface: AnyObject { view }
    private var configuration: AutoView { view.state.view }

    // MARK: Tables

    func createTables() throws {
        try view.store.createTables()
    }

    func populate() throws {
        guard !configuration.skipInitialViewPopulation else { return }
        try view.prepareToWrite()
        var groups: [String: [ExtensionRow]] = [:]
        let transaction = try view.context.transaction()
        let grouping = configuration.grouping
        try view.context.enumerateRows(
            in: configuration.allowedCollections,
            readingObject: grouping.readsObject || configuration.sorting.kind.readsObject,
            readingMetadata: grouping.readsMetadata || configuration.sorting.kind.readsMetadata
        ) { row in
            var group: String?
            try grouping.fill(&group, for: row, in: transaction)
            if let group { groups[group, default: []].append(row) }
        }
        for (group, rows) in groups {
            // The standard library's sort is stable: rows that compare the same keep their order.
            let sorting = configuration.sorting
            let sorted = try rows.sorted { try sorting.compare(transaction, group, $0, $1) == .orderedAscending }
            try view.withList(group) { list in
                for row in sorted { _ = try list.insert(row.rowid, at: list.count) }
            }
            for row in sorted { view.groupOverride[row.rowid] = group }
        }
    }

    // MARK: Hooks

    func didInsert(_ row: ExtensionRow) throws {
        guard configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.prepareToWrite()
        if let group = try group(of: row) { try insert(row, into: group) }
    }

    func didUpdate(_ row: ExtensionRow) throws { try rowChanged(row, .update, parts: [.object, .metadata]) }
    func didReplaceObject(_ row: ExtensionRow) throws { try rowChanged(row, .replaceObject, parts: .object) }
    func didReplaceMetadata(_ row: ExtensionRow) throws { try rowChanged(row, .replaceMetadata, parts: .metadata) }

    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        var parts: ViewChangedParts = []
        if object { parts.insert(.object) }
        if metadata { parts.insert(.metadata) }
        try rowChanged(row, .touch(object: object, metadata: metadata), parts: parts)
    }

    func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        guard configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.prepareToWrite()
        if let group = try view.group(ofRow: rowid) { try remove(row, rowid: rowid, from: group) }
    }

    /// Each row of a removed collection leaves its group on its own, so its changes say where.
    func removesEachRow(ofCollection collection: String) -> Bool {
        configuration.allowedCollections.isAllowed(collection)
    }

    func didRemoveAllCollections() throws {
        try view.prepareToWrite()
        // Read before the pages go, so other connections learn which pages to forget.
        let emptied = try view.layout()
        for group in try view.groups() {
            view.records.append(.clearGroup(group))
            view.records.append(.deleteGroup(group))
            view.writtenGroups.insert(group)
        }
        try view.store.removeAll()
        view.writtenPages.formUnion(emptied.groupOfPage.keys)
        for list in view.lists.values { view.writtenPages.formUnion(list.tree.pages.map(\.page)) }
        view.working = ViewLayout()
        view.lists = [:]
        view.groupOverride = [:]
        view.clearedAll = true
    }

    // MARK: Placing rows

    private func group(of row: ExtensionRow) throws -> String? {
        var group: String?
        try configuration.grouping.fill(&group, for: row, in: view.context.transaction())
        return group
    }

    private func rowChanged(_ row: ExtensionRow, _ change: RowHandlerChange, parts: ViewChangedParts) throws {
        guard configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.prepareToWrite()
        let regroup = configuration.grouping.runs(on: change)
        let resort = ViewGrouping.runs(configuration.sorting.kind, on: change)
        let old = try view.group(ofRow: row.rowid)
        let new = regroup ? try group(of: row) : old
        if old == new, let group = old, let index = try view.withList(group, { try $0.index(of: row.rowid) }),
            try !resort || staysInPlace(row, at: index, in: group)
        {
            view.records.append(.updateRow(row.collectionKey, group: group, index: index, parts: parts))
            return
        }
        if let old { try remove(row.collectionKey, rowid: row.rowid, from: old) }
        if let new { try insert(row, into: new) }
    }

    /// Whether the changed `row`, at `index` of `group`, still sorts between its neighbours (ties
    /// keep their order), so it need not move: most edits do not change the sort order.
    private func staysInPlace(_ row: ExtensionRow, at index: Int, in group: String) throws -> Bool {
        let transaction = try view.context.transaction()
        let compare = configuration.sorting.compare
        if index > 0, try compare(transaction, group, neighbour(at: index - 1, in: group), row) == .orderedDescending {
            return false
        }
        if index + 1 < (try view.numberOfItems(inGroup: group)),
            try compare(transaction, group, row, neighbour(at: index + 1, in: group)) == .orderedDescending
        {
            return false
        }
        return true
    }

    private func insert(_ row: ExtensionRow, into group: String) throws {
        let transaction = try view.context.transaction()
        let compare = configuration.sorting.compare
        let count = try view.numberOfItems(inGroup: group)
        var (low, high) = (0, count)
        // Rows often arrive in sort order: one comparison with the last row places those.
        if count > 0, try compare(transaction, group, row, neighbour(at: count - 1, in: group)) != .orderedAscending {
            low = count
        }
        while low < high {
            let middle = (low + high) / 2
            if try compare(transaction, group, row, neighbour(at: middle, in: group)) == .orderedAscending {
                high = middle
            } else {
                low = middle + 1
            }
        }
        if count == 0 { view.records.append(.insertGroup(group)) }
        _ = try view.withList(group) { try $0.insert(row.rowid, at: low) }
        view.records.append(.insertRow(row.collectionKey, group: group, index: low))
        view.groupOverride[row.rowid] = group
    }

    /// The row at `index` of `group`, read for the sorting.
    private func neighbour(at index: Int, in group: String) throws -> ExtensionRow {
        try view.row(at: index, inGroup: group, reading: configuration.sorting.kind)
    }

    private func remove(_ row: CollectionKey, rowid: Int64, from group: String) throws {
        let (index, emptied) = try view.withList(group) { list in (try list.remove(rowid), list.count == 0) }
        guard let index else { return }
        view.records.append(.deleteRow(row, group: group, index: index))
        if emptied { view.records.append(.deleteGroup(group)) }
        view.groupOverride[rowid] = .some(nil)
    }

    // MARK: Commit

    var hasPendingChanges: Bool { view.lists.values.contains { $0.hasChanges } }

    func flushPendingChanges() throws {
        // A rowid removed from one group can come back in another (SQLite reuses the largest
        // rowid): where it is placed wins over where it left, whatever order the groups come in.
        var placed: [Int64: ViewPageTree.PageID] = [:]
        var removed: Set<Int64> = []
        for list in view.lists.values {
            for (rowid, page) in list.movedRows {
                if let page { placed[rowid] = page } else { removed.insert(rowid) }
            }
        }
        for rowid in removed where placed[rowid] == nil { try view.store.setPage(nil, ofRow: rowid) }
        for (rowid, page) in placed { try view.store.setPage(page, ofRow: rowid) }
        for (group, var list) in view.lists where list.hasChanges {
            let tree = list.tree
            for page in list.removedPages { try view.store.delete(page) }
            for page in list.dirtyPages.union(list.relinkedPages) where tree.contains(page) {
                let position = tree.position(of: page) ?? 0
                let previous = position > 0 ? tree.page(at: position - 1) : nil
                if list.dirtyPages.contains(page), let rowids = list.loadedPages[page] {
                    try view.store.write(
                        ViewPageRecord(page: page, group: group, previous: previous, rows: rowids.rowids.count),
                        rowids: rowids)
                } else {
                    try view.store.relink(page, previous: previous)
                }
            }
            view.writtenGroups.insert(group)
            view.writtenPages.formUnion(list.dirtyPages)
            view.writtenPages.formUnion(list.removedPages)
            list.markWritten()
            view.lists[group] = list
        }
    }

    func changesForCommit() -> AutoViewChanges? {
        guard !view.records.isEmpty || !view.writtenGroups.isEmpty else { return nil }
        var pageChanges: [String: ViewGroupPageChanges] = [:]
        for (group, list) in view.lists where view.writtenGroups.contains(group) {
            var rows: [ViewPageTree.PageID: Int] = [:]
            for page in view.writtenPages {
                if let count = list.tree.rows(in: page) { rows[page] = count }
            }
            pageChanges[group] = ViewGroupPageChanges(structure: list.structure, rows: rows)
        }
        return AutoViewChanges(
            records: view.records, changedGroups: view.writtenGroups, changedPages: view.writtenPages,
            pageChanges: pageChanges, clearedAll: view.clearedAll)
    }

    func didRollback() {
        for group in view.checkedOutGroups { view.state.layout?.staleGroups.insert(group) }
    }

    func didCommit() {
        guard var layout = view.working else { return }
        // Take what changed, then let go of every other hold on the layout's storage (the
        // lists start from its page cache; the state and the transaction keep it), so that the
        // updates below change it in place: copying it would cost every page of the view per commit.
        let written = view.writtenPages
        var trees: [(group: String, tree: ViewPageTree?)] = []
        var pages: [(page: ViewPageTree.PageID, rows: ViewPage, group: String)] = []
        for (group, list) in view.lists {
            trees.append((group, list.tree.rowCount > 0 ? list.tree : nil))
            for page in written where list.tree.contains(page) {
                if let rows = list.loadedPages[page] { pages.append((page, rows, group)) }
            }
        }
        view.lists = [:]
        view.working = nil
        view.state.layout = nil
        for page in written { layout.pages[page] = nil }
        for (group, tree) in trees { layout.trees[group] = tree }
        for (page, rows, group) in pages {
            layout.pages[page] = rows
            layout.groupOfPage[page] = group
        }
        view.state.layout = layout
    }
}
