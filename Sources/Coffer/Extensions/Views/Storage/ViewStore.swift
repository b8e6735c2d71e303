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
    /// Records the page row `rowid` is on, or (nil) that it left the view.
    func setPage(_ page: ViewPageTree.PageID?, ofRow rowid: Int64) throws
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
    let pageTable: String
    let mapTable: String

    init(tables: ExtensionTables, registeredName: String) {
        self.tables = tables
        pageTable = ExtensionTables.quote(AutoView.pageTableName(registeredName: registeredName))
        mapTable = ExtensionTables.quote(AutoView.mapTableName(registeredName: registeredName))
    }

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
        let head = "SELECT \"pageKey\", \"group\", \"prevPageKey\", \"count\" FROM \(pageTable)"
        let query =
            group.map { ExtensionQuery(head + " WHERE \"group\" = ?", arguments: [.text($0)]) } ?? ExtensionQuery(head)
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
        guard
            let data = try tables.scalar("SELECT \"data\" FROM \(pageTable) WHERE \"pageKey\" = ?", [.integer(page)])?
                .dataValue
        else {
            throw DatabaseError(.corrupt, "view page \(page) is missing from \(pageTable)")
        }
        return try ViewPage(decoding: data, view: pageTable)
    }

    func pageOfRow(_ rowid: Int64) throws -> ViewPageTree.PageID? {
        try tables.scalar("SELECT \"pageKey\" FROM \(mapTable) WHERE \"rowid\" = ?", [.integer(rowid)])?.int64Value
    }

    func largestPageID() throws -> ViewPageTree.PageID {
        try tables.scalar("SELECT MAX(\"pageKey\") FROM \(pageTable)")?.int64Value ?? 0
    }

    func write(_ record: ViewPageRecord, rowids: ViewPage) throws {
        try tables.run(
            "INSERT OR REPLACE INTO \(pageTable) (\"pageKey\", \"group\", \"prevPageKey\", \"count\", \"data\") VALUES (?, ?, ?, ?, ?)",
            [
                .integer(record.page), .text(record.group), record.previous.map { .integer($0) } ?? .null,
                .integer(Int64(record.rows)), .blob(rowids.encoded),
            ])
    }

    func relink(_ page: ViewPageTree.PageID, previous: ViewPageTree.PageID?) throws {
        try tables.run(
            "UPDATE \(pageTable) SET \"prevPageKey\" = ? WHERE \"pageKey\" = ?",
            [previous.map { .integer($0) } ?? .null, .integer(page)])
    }

    func delete(_ page: ViewPageTree.PageID) throws {
        try tables.run("DELETE FROM \(pageTable) WHERE \"pageKey\" = ?", [.integer(page)])
    }

    func setPage(_ page: ViewPageTree.PageID?, ofRow rowid: Int64) throws {
        if let page {
            try tables.run(
                "INSERT OR REPLACE INTO \(mapTable) (\"rowid\", \"pageKey\") VALUES (?, ?)",
                [.integer(rowid), .integer(page)])
        } else {
            try tables.run("DELETE FROM \(mapTable) WHERE \"rowid\" = ?", [.integer(rowid)])
        }
    }

    func removeAll() throws {
        try tables.run("DELETE FROM \(pageTable)")
        try tables.run("DELETE FROM \(mapTable)")
    }
}
