/// Reading and opening a view's pages: the layout at the transaction's snapshot and the lists
/// of the groups it changes.
extension ViewTransaction {
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
    func trees() throws -> [String: ViewPageTree] {
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
