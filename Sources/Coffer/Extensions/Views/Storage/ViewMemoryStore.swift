/// One page of a non-persistent view as its memory table keeps it: the page table's row and
/// its rowids together.
struct ViewMemoryPage: Sendable {
    var group: String
    var previous: ViewPageTree.PageID?
    var rowids: ViewPage
}

/// A non-persistent view's pages and map, in two memory tables of its registration.
///
/// A read-only transaction reads the tables at its snapshot, a read-write one through its own
/// write views, whose changes commit and roll back with it: connections and long-lived reads
/// see the same rows at the same snapshots as with ``ViewTableStore``, and nothing reaches the
/// file. The tables belong to the registration, so registering again starts empty.
struct ViewMemoryStore: ViewStore {
    typealias PageTable = MemoryTable<ViewPageTree.PageID, ViewMemoryPage>
    typealias MapTable = MemoryTable<Int64, ViewPageTree.PageID>

    let context: ExtensionContext

    /// The registration's table of pages, page id → page.
    private func pageTable() throws -> PageTable {
        try context.registration.memoryTable(named: "page")
    }

    /// The registration's map, rowid → page id.
    private func mapTable() throws -> MapTable {
        try context.registration.memoryTable(named: "map")
    }

    /// The largest page id written to the registration's page table, shared by its connections.
    private func largestWritten() throws -> Locked<ViewPageTree.PageID> {
        try context.registration.sharedValue(named: "largestPageID") { Locked(0) }
    }

    /// Tables in memory exist once the registration made them.
    func createTables() throws {}

    /// - Complexity: O(pages of every group): the memory table has no index by group. A
    ///   connection scans once for its first layout and once per group another commit changed.
    func pageRecords(inGroup group: String?) throws -> [ViewPageRecord] {
        var records: [ViewPageRecord] = []
        try enumerate(pageTable()) { id, page in
            guard group == nil || page.group == group else { return }
            records.append(
                ViewPageRecord(page: id, group: page.group, previous: page.previous, rows: page.rowids.rowids.count))
        }
        return records
    }

    func page(_ page: ViewPageTree.PageID) throws -> ViewPage {
        guard let stored = try value(forKey: page, in: pageTable()) else {
            throw DatabaseError(.corrupt, "page \(page) of view \"\(context.registeredName)\" is missing from memory")
        }
        return stored.rowids
    }

    func pageOfRow(_ rowid: Int64) throws -> ViewPageTree.PageID? {
        try value(forKey: rowid, in: mapTable())
    }

    /// The largest page id ever written, which is at least the largest in use: ids need only be
    /// unique, and reading it costs O(1) where scanning the pages cost O(pages) per write transaction.
    func largestPageID() throws -> ViewPageTree.PageID {
        try largestWritten().withLock { $0 }
    }

    func write(_ record: ViewPageRecord, rowids: ViewPage) throws {
        let page = ViewMemoryPage(group: record.group, previous: record.previous, rowids: rowids)
        try change(pageTable()) { try $0.setValue(page, forKey: record.page) }
        // Raised before the commit and kept on a rollback: an id given out twice is the only harm.
        try largestWritten().withLock { $0 = max($0, record.page) }
    }

    func relink(_ page: ViewPageTree.PageID, previous: ViewPageTree.PageID?) throws {
        try change(pageTable()) { table in
            guard var stored = try table.value(forKey: page) else { return }
            stored.previous = previous
            try table.setValue(stored, forKey: page)
        }
    }

    func delete(_ page: ViewPageTree.PageID) throws {
        try change(pageTable()) { try $0.removeValue(forKey: page) }
    }

    func setPages(_ placed: [Int64: ViewPageTree.PageID], removing removed: [Int64]) throws {
        try change(mapTable()) { table in
            for rowid in removed { try table.removeValue(forKey: rowid) }
            for (rowid, page) in placed { try table.setValue(page, forKey: rowid) }
        }
    }

    func removeAll() throws {
        try change(pageTable()) { try $0.removeAll() }
        try change(mapTable()) { try $0.removeAll() }
    }

    // MARK: Reaching the tables

    /// The value of `key` in `table` as this transaction sees it.
    private func value<Key, Value>(forKey key: Key, in table: MemoryTable<Key, Value>) throws -> Value? {
        try mapped {
            context.isReadWrite
                ? try context.writeView(of: table).value(forKey: key)
                : try context.readView(of: table).value(forKey: key)
        }
    }

    /// Calls `body` with every key and value of `table` as this transaction sees it.
    private func enumerate<Key, Value>(_ table: MemoryTable<Key, Value>, _ body: (Key, Value) throws -> Void) throws {
        try mapped {
            if context.isReadWrite {
                try context.writeView(of: table).enumerate { key, value, _ in try body(key, value) }
            } else {
                try context.readView(of: table).enumerate { key, value, _ in try body(key, value) }
            }
        }
    }

    /// Runs `body` on the transaction's write view of `table`.
    private func change<Key, Value>(
        _ table: MemoryTable<Key, Value>, _ body: (MemoryTable<Key, Value>.WriteView) throws -> Void
    ) throws {
        try mapped { try body(context.writeView(of: table)) }
    }

    /// `body`'s result, with a memory table's refusal reported as the view's failure.
    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MemoryTableError {
            throw DatabaseError(.extensionFailure, "memory table of view \"\(context.registeredName)\": \(error)")
        }
    }
}
