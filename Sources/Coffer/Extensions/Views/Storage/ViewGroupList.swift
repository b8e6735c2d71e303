/// The rows of one view group in order, kept in pages of at most ``ViewPage/maximumRowCount``
/// rowids: inserting, removing or finding a row reads and writes one page (two when it splits),
/// and the page tree finds the page in O(log p).
///
/// Pages are loaded through `loadPage` when first needed and kept; what changed is recorded
/// (``dirtyPages``, ``removedPages``, ``movedRows``) so a persistent view writes only those pages
/// and map entries, and a non-persistent one copies only those into its memory tables.
struct ViewGroupList {
    typealias PageID = ViewPageTree.PageID

    /// The group's name.
    let group: String
    private(set) var tree: ViewPageTree
    private var loaded: [PageID: ViewPage] = [:]
    private let loadPage: (PageID) throws -> ViewPage
    private let newPageID: () -> PageID
    /// The page a row was on when the list was made (rows placed since are in ``movedRows``).
    private let pageOfRow: (Int64) throws -> PageID?

    /// Pages whose rows changed (or that are new), to write back.
    private(set) var dirtyPages: Set<PageID> = []
    /// Pages that emptied and left the group, to delete.
    private(set) var removedPages: Set<PageID> = []
    /// Rows placed on a new page (or removed: nil) since the list was made, to write to the map.
    private(set) var movedRows: [Int64: PageID?] = [:]
    /// Pages whose predecessor changed (a page was inserted or removed before them), whose link
    /// to write back even if their rows did not change.
    private(set) var relinkedPages: Set<PageID> = []
    /// Pages inserted and removed since the list was made, in order, so that another connection
    /// can replay them on its copy of the tree instead of reading every page of the group again.
    private(set) var structure: [ViewPageChange] = []

    /// The pages read or written so far, to keep for the next transaction.
    var loadedPages: [PageID: ViewPage] { loaded }
    /// Whether anything changed since the list was made.
    var hasChanges: Bool { !dirtyPages.isEmpty || !removedPages.isEmpty || !movedRows.isEmpty }

    /// A list over `tree`'s pages; `loadPage` reads a page's rowids, `pageOfRow` the page a row
    /// was on when the list was made, and `newPageID` names a page the list creates.
    init(
        group: String, tree: ViewPageTree,
        loadPage: @escaping (PageID) throws -> ViewPage,
        pageOfRow: @escaping (Int64) throws -> PageID?, newPageID: @escaping () -> PageID
    ) {
        self.group = group
        self.tree = tree
        self.loadPage = loadPage
        self.pageOfRow = pageOfRow
        self.newPageID = newPageID
    }

    /// The number of rows in the group.
    var count: Int { tree.rowCount }

    // MARK: Reading

    /// The rowid at `index`, or nil when out of range.
    /// - Complexity: O(log p), plus loading the page once.
    mutating func rowid(at index: Int) throws -> Int64? {
        guard let (page, offset) = tree.locate(row: index) else { return nil }
        return try self.page(page).rowids[offset]
    }

    /// The rowids of the page holding row `index`, with the group index of the page's first row;
    /// nil when out of range.
    /// - Complexity: O(log p), plus loading the page once.
    mutating func rowids(onPageOf index: Int) throws -> (first: Int, rowids: [Int64])? {
        guard let (page, offset) = tree.locate(row: index) else { return nil }
        return (index - offset, try self.page(page).rowids)
    }

    /// The index of `rowid` in the group, or nil when it is not in the group.
    /// - Complexity: O(log p) plus a scan of one page.
    mutating func index(of rowid: Int64) throws -> Int? {
        guard let page = try currentPage(of: rowid), let first = tree.firstRow(of: page),
            let offset = try self.page(page).rowids.firstIndex(of: rowid)
        else { return nil }
        return first + offset
    }

    /// Calls `body` with each rowid from `start` on, in order (backwards when `reverse`), until it
    /// sets `stop`.
    /// - Complexity: O(log p) to find the first page, then O(1) per row and one load per page.
    mutating func enumerate(
        from start: Int = 0, reverse: Bool = false,
        _ body: (_ index: Int, _ rowid: Int64, _ stop: inout Bool) throws -> Void
    ) throws {
        guard let (firstPage, firstOffset) = tree.locate(row: start), var position = tree.position(of: firstPage)
        else { return }
        var index = start
        var offset = firstOffset
        var stop = false
        while let pageID = tree.page(at: position) {
            let rowids = try page(pageID).rowids
            while offset >= 0 && offset < rowids.count {
                try body(index, rowids[offset], &stop)
                if stop { return }
                offset += reverse ? -1 : 1
                index += reverse ? -1 : 1
            }
            position += reverse ? -1 : 1
            guard position >= 0, let next = tree.page(at: position) else { return }
            offset = reverse ? (tree.rows(in: next) ?? 0) - 1 : 0
        }
    }

    // MARK: Changing

    /// Inserts `rowid` at `index` (0...count).
    /// - Returns: false, changing nothing, when the index is out of range.
    /// - Complexity: O(log p) plus one page (two when it splits).
    mutating func insert(_ rowid: Int64, at index: Int) throws -> Bool {
        guard index >= 0, index <= count else { return false }
        let target: (page: PageID, offset: Int)
        if let found = tree.locate(row: index) {
            target = found
        } else if let last = tree.page(at: tree.pageCount - 1) {
            // Past the last row: the end of the last page.
            target = (last, tree.rows(in: last) ?? 0)
        } else {
            let created = newPageID()
            tree.insert(created, rows: 0, at: 0)
            structure.append(.inserted(created, at: 0))
            dirtyPages.insert(created)
            loaded[created] = ViewPage()
            target = (created, 0)
        }
        var page = try self.page(target.page)
        page.rowids.insert(rowid, at: target.offset)
        place(rowid, on: target.page)
        if page.isOverfull {
            let second = page.splitOffSecondHalf()
            let secondID = newPageID()
            let position = (tree.position(of: target.page) ?? 0) + 1
            tree.insert(secondID, rows: second.rowids.count, at: position)
            structure.append(.inserted(secondID, at: position))
            if let next = tree.page(at: position + 1) { relinkedPages.insert(next) }
            store(second, as: secondID)
            for moved in second.rowids { place(moved, on: secondID) }
        }
        store(page, as: target.page)
        return true
    }

    /// Removes the row at `index`.
    /// - Returns: the removed rowid, or nil when the index is out of range.
    mutating func remove(at index: Int) throws -> Int64? {
        guard let (pageID, offset) = tree.locate(row: index) else { return nil }
        var page = try self.page(pageID)
        let rowid = page.rowids.remove(at: offset)
        finishRemoval(of: rowid, from: page, pageID)
        return rowid
    }

    /// Removes `rowid`.
    /// - Returns: the index it had, or nil when it is not in the group.
    mutating func remove(_ rowid: Int64) throws -> Int? {
        guard let pageID = try currentPage(of: rowid), let first = tree.firstRow(of: pageID) else { return nil }
        var page = try self.page(pageID)
        guard let offset = page.rowids.firstIndex(of: rowid) else { return nil }
        page.rowids.remove(at: offset)
        finishRemoval(of: rowid, from: page, pageID)
        return first + offset
    }

    /// Forgets what changed, once it was written.
    mutating func markWritten() {
        dirtyPages = []
        removedPages = []
        movedRows = [:]
        relinkedPages = []
    }

    // MARK: Internals

    private mutating func finishRemoval(of rowid: Int64, from page: ViewPage, _ pageID: PageID) {
        movedRows[rowid] = .some(nil)
        if page.rowids.isEmpty {
            let position = tree.position(of: pageID) ?? 0
            tree.remove(pageID)
            structure.append(.removed(pageID))
            if let next = tree.page(at: position) { relinkedPages.insert(next) }
            relinkedPages.remove(pageID)
            loaded[pageID] = nil
            dirtyPages.remove(pageID)
            removedPages.insert(pageID)
        } else {
            store(page, as: pageID)
        }
    }

    private mutating func page(_ id: PageID) throws -> ViewPage {
        if let page = loaded[id] { return page }
        let page = try loadPage(id)
        loaded[id] = page
        return page
    }

    private mutating func store(_ page: ViewPage, as id: PageID) {
        loaded[id] = page
        tree.setRows(page.rowids.count, of: id)
        dirtyPages.insert(id)
    }

    private mutating func place(_ rowid: Int64, on page: PageID) {
        movedRows[rowid] = page
    }

    private func currentPage(of rowid: Int64) throws -> PageID? {
        if let moved = movedRows[rowid] { return moved }
        guard let page = try pageOfRow(rowid), tree.contains(page) else { return nil }
        return page
    }
}

/// A change to the order of a group's pages, as ``ViewGroupList`` made it.
enum ViewPageChange: Sendable, Equatable {
    /// A page inserted at a position among the group's pages.
    case inserted(ViewPageTree.PageID, at: Int)
    /// A page that emptied and left the group.
    case removed(ViewPageTree.PageID)
}
