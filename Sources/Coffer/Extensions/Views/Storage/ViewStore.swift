import Foundation

/// One page's place in a view: its group, the page before it, and how many rows it holds.
struct ViewPageRecord: Sendable, Equatable {
    var page: ViewPageTree.PageID
    var group: String
    var previous: ViewPageTree.PageID?
    var rows: Int
}

/// Where a view keeps its pages and its row → page map: tables in the file for a persistent
/// view (YapDatabase's `view_<name>_page` and `view_<name>_map`), the registration's memory
/// tables for one that is not.
protocol ViewStore {
    /// Creates the tables if they do not exist.
    func createTables() throws
    /// Every page of `group` (or of every group when nil), in no particular order.
    func pageRecords(inGroup group: String?) throws -> [ViewPageRecord]
    /// The rowids of page `page`.
    func page(_ page: ViewPageTree.PageID) throws -> ViewPage
    /// The page row `rowid` is on, or nil when it is not in the view.
    func pageOfRow(_ rowid: Int64) throws -> ViewPageTree.PageID?
    /// The largest page id in use (0 when there is none).
    func largestPageID() throws -> ViewPageTree.PageID
    /// Writes a page: its rows and its place.
    func write(_ record: ViewPageRecord, rowids: ViewPage) throws
    /// Changes only the page before `page`.
    func relink(_ page: ViewPageTree.PageID, previous: ViewPageTree.PageID?) throws
    /// Deletes a page.
    func delete(_ page: ViewPageTree.PageID) throws
    /// Records the page each row of `placed` is on, and that the rows of `removed` left the view.
    func setPages(_ placed: [Int64: ViewPageTree.PageID], removing removed: [Int64]) throws
    /// Empties the view.
    func removeAll() throws
}

extension ViewStore {
    /// Each group's pages in order, from the records' links.
    /// - Throws: ``DatabaseError`` `.corrupt` when a group's links do not make one chain.
    func trees(from records: [ViewPageRecord], view: String) throws -> [String: ViewPageTree] {
        var byGroup: [String: [ViewPageRecord]] = [:]
        for record in records { byGroup[record.group, default: []].append(record) }
        var trees: [String: ViewPageTree] = [:]
        for (group, pages) in byGroup {
            var next: [ViewPageTree.PageID: ViewPageRecord] = [:]
            var first: ViewPageRecord?
            for record in pages {
                if let previous = record.previous { next[previous] = record } else { first = record }
            }
            var tree = ViewPageTree()
            var current = first
            while let record = current, tree.insert(record.page, rows: record.rows, at: tree.pageCount) {
                current = next[record.page]
            }
            guard tree.pageCount == pages.count else {
                throw DatabaseError(
                    .corrupt, "the pages of group \"\(group)\" of view \"\(view)\" do not form one list")
            }
            trees[group] = tree
        }
        return trees
    }
}

/// A persistent view's pages and map, in the view's tables.
struct ViewTableStore: ViewStore {
    let tables: ExtensionTables
    private let sql: ViewTableSQL
    /// The last row whose page was read from the map, and that page.
    ///
    /// Finding a row's group and then its index reads the same map row twice. Forgotten when the
    /// map is written.
    private let lastPageOfRow = ViewRowPageMemo()

    init(tables: ExtensionTables, registeredName: String) {
        self.tables = tables
        sql = ViewTableSQL.forView(registeredName: registeredName)
    }

    var pageTable: String { sql.pageTable }
    var mapTable: String { sql.mapTable }

    func createTables() throws {
        let groupIndex = ExtensionTables.quote(pageTableNameUnquoted + "_group")
        try tables.execute(
            """
            CREATE TABLE IF NOT EXISTS \(pageTable) ("pageKey" INTEGER PRIMARY KEY, "group" TEXT NOT NULL, \
            "prevPageKey" INTEGER, "count" INTEGER NOT NULL, "data" BLOB NOT NULL);
            CREATE INDEX IF NOT EXISTS \(groupIndex) ON \(pageTable) ("group");
            CREATE TABLE IF NOT EXISTS \(mapTable) ("rowid" INTEGER PRIMARY KEY, "pageKey" INTEGER NOT NULL)
            """)
    }

    private var pageTableNameUnquoted: String {
        String(pageTable.dropFirst().dropLast())
    }

    func pageRecords(inGroup group: String?) throws -> [ViewPageRecord] {
        var records: [ViewPageRecord] = []
        let query =
            group.map { ExtensionQuery(sql.pageRecordsInGroup, arguments: [.text($0)]) }
            ?? ExtensionQuery(sql.pageRecords)
        try tables.query(query) { row, _ in
            records.append(
                ViewPageRecord(
                    page: row.int64(at: 0), group: row.text(at: 1),
                    previous: row.isNull(at: 2) ? nil : row.int64(at: 2),
                    rows: Int(row.int64(at: 3))))
        }
        return records
    }

    func page(_ page: ViewPageTree.PageID) throws -> ViewPage {
        guard let data = try tables.scalar(sql.pageData, [.integer(page)])?.dataValue else {
            throw DatabaseError(.corrupt, "view page \(page) is missing from \(pageTable)")
        }
        return try ViewPage(decoding: data, view: pageTable)
    }

    func pageOfRow(_ rowid: Int64) throws -> ViewPageTree.PageID? {
        if let last = lastPageOfRow.last, last.rowid == rowid { return last.page }
        let page = try tables.scalar(sql.pageOfRow, [.integer(rowid)])?.int64Value
        lastPageOfRow.last = (rowid, page)
        return page
    }

    func largestPageID() throws -> ViewPageTree.PageID {
        try tables.scalar(sql.largestPage)?.int64Value ?? 0
    }

    /// Updates the page's row, or inserts it when there is none.
    ///
    /// A page keeps its group, so the update leaves the group index alone; see ``ViewTableSQL``
    /// for why neither statement is `INSERT OR REPLACE`.
    func write(_ record: ViewPageRecord, rowids: ViewPage) throws {
        let previous: DatabaseValue = record.previous.map { .integer($0) } ?? .null
        let data = DatabaseValue.blob(rowids.encoded)
        let count = DatabaseValue.integer(Int64(record.rows))
        guard try tables.run(sql.updatePage, [previous, count, data, .integer(record.page)]) == 0 else { return }
        try tables.run(sql.insertPage, [.integer(record.page), .text(record.group), previous, count, data])
    }

    func relink(_ page: ViewPageTree.PageID, previous: ViewPageTree.PageID?) throws {
        try tables.run(sql.relinkPage, [previous.map { .integer($0) } ?? .null, .integer(page)])
    }

    func delete(_ page: ViewPageTree.PageID) throws {
        try tables.run(sql.deletePage, [.integer(page)])
    }

    /// Writes the map rows in rowid order, many to a statement.
    ///
    /// New rows then append to the table's last leaf instead of each descending the tree on its
    /// own. A statement inserts the rows that are new; when some were there already, each row of
    /// the statement is updated.
    func setPages(_ placed: [Int64: ViewPageTree.PageID], removing removed: [Int64]) throws {
        lastPageOfRow.last = nil
        for rowid in removed { try tables.run(sql.deleteMapRow, [.integer(rowid)]) }
        let rows = placed.sorted { $0.key < $1.key }
        var start = 0
        while start < rows.count {
            // Powers of two, so a handful of statements (each cached) covers any count.
            var size = ViewTableSQL.mapRowsPerStatement
            while size > rows.count - start { size /= 2 }
            let chunk = rows[start..<start + size]
            var arguments: [DatabaseValue] = []
            arguments.reserveCapacity(2 * size)
            for (rowid, page) in chunk {
                arguments.append(.integer(rowid))
                arguments.append(.integer(page))
            }
            if try tables.run(sql.insertMapRows(size), arguments) < size {
                for (rowid, page) in chunk { try tables.run(sql.updateMapRow, [.integer(page), .integer(rowid)]) }
            }
            start += size
        }
    }

    func removeAll() throws {
        lastPageOfRow.last = nil
        try tables.run(sql.deleteAllPages)
        try tables.run(sql.deleteAllMapRows)
    }
}

/// The last row a ``ViewTableStore`` read the page of, and that page (nil: not in the view).
private final class ViewRowPageMemo {
    var last: (rowid: Int64, page: ViewPageTree.PageID?)?
}
