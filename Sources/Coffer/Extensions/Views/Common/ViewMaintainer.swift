/// The platform's side of a view in one transaction, whatever its kind.
///
/// It creates the view's tables, writes the changed pages at the flush, and hands the
/// connection its new layout at the commit. Each kind of view overrides the hooks it acts on; readers get ``view``.
class ViewMaintainer<View: ViewTransaction>: ExtensionTransaction {
    let view: View

    init(_ view: View) {
        self.view = view
    }

    var queryInterface: AnyObject { view }

    // MARK: Tables

    func createTables() throws {
        try view.store.createTables()
    }

    func populate() throws {}

    // MARK: Hooks (each kind overrides those it acts on)

    func willInsert(_ row: ExtensionRow) throws {}
    func didInsert(_ row: ExtensionRow) throws {}
    func willUpdate(_ row: ExtensionRow) throws {}
    func didUpdate(_ row: ExtensionRow) throws {}
    func willReplaceObject(_ row: ExtensionRow) throws {}
    func didReplaceObject(_ row: ExtensionRow) throws {}
    func willReplaceMetadata(_ row: ExtensionRow) throws {}
    func didReplaceMetadata(_ row: ExtensionRow) throws {}
    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {}
    func willRemove(_ row: CollectionKey, rowid: Int64) throws {}
    func didRemove(_ row: CollectionKey, rowid: Int64) throws {}
    func removesEachRow(ofCollection collection: String) -> Bool { false }
    func willRemoveAll(inCollection collection: String) throws {}
    func didRemoveAll(inCollection collection: String) throws {}
    func willRemoveAllCollections() throws {}
    func didRemoveAllCollections() throws {}

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
        try view.store.setPages(placed, removing: removed.filter { placed[$0] == nil })
        for (group, var list) in view.lists where list.hasChanges {
            let tree = list.tree
            for page in list.removedPages { try view.store.delete(page) }
            // In id order, so that new pages append to the page table.
            for page in list.dirtyPages.union(list.relinkedPages).sorted() where tree.contains(page) {
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

    func changesForCommit() -> ViewCommitChanges? {
        guard !view.records.isEmpty || !view.writtenGroups.isEmpty else { return nil }
        var pageChanges: [String: ViewGroupPageChanges] = [:]
        for (group, list) in view.lists where view.writtenGroups.contains(group) {
            var rows: [ViewPageTree.PageID: Int] = [:]
            for page in view.writtenPages {
                if let count = list.tree.rows(in: page) { rows[page] = count }
            }
            pageChanges[group] = ViewGroupPageChanges(structure: list.structure, rows: rows)
        }
        return ViewCommitChanges(
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
