/// The platform's side of an ``AutoView`` in one transaction: every write hook places, moves or
/// removes its row by the grouping and the sorting.
final class AutoViewMaintainer: ViewMaintainer<AutoViewTransaction> {
    private var configuration: AutoView { view.configuration }

    override func populate() throws {
        guard !configuration.skipInitialViewPopulation else { return }
        try view.populate(recording: false)
    }

    // MARK: Hooks

    override func didInsert(_ row: ExtensionRow) throws {
        guard configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.prepareToWrite()
        if let group = try group(of: row) { try insert(row, into: group) }
    }

    override func didUpdate(_ row: ExtensionRow) throws {
        try rowChanged(row, .update, parts: [.object, .metadata])
    }

    override func didReplaceObject(_ row: ExtensionRow) throws {
        try rowChanged(row, .replaceObject, parts: .object)
    }

    override func didReplaceMetadata(_ row: ExtensionRow) throws {
        try rowChanged(row, .replaceMetadata, parts: .metadata)
    }

    override func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        var parts: ViewChangedParts = []
        if object { parts.insert(.object) }
        if metadata { parts.insert(.metadata) }
        try rowChanged(row, .touch(object: object, metadata: metadata), parts: parts)
    }

    override func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        guard configuration.allowedCollections.isAllowed(row.collection) else { return }
        view.forgetSortRow(rowid)
        try view.prepareToWrite()
        if let group = try view.group(ofRow: rowid) { try view.remove(rowid, key: row, from: group) }
    }

    /// Each row of a removed collection leaves its group on its own, so its changes say where.
    override func removesEachRow(ofCollection collection: String) -> Bool {
        configuration.allowedCollections.isAllowed(collection)
    }

    override func didRemoveAllCollections() throws {
        view.forgetSortKeys()
        try view.removeAllRows()
    }

    // MARK: Placing rows

    private func group(of row: ExtensionRow) throws -> String? {
        var group: String?
        try view.logic.grouping.fill(&group, for: row, in: view.context.transaction())
        return group
    }

    private func rowChanged(_ row: ExtensionRow, _ change: RowHandlerChange, parts: ViewChangedParts) throws {
        guard configuration.allowedCollections.isAllowed(row.collection) else { return }
        view.forgetSortRow(row.rowid)
        try view.prepareToWrite()
        let regroup = view.logic.grouping.runs(on: change)
        let resort = ViewGrouping.runs(view.logic.sorting.kind, on: change)
        let old = try view.group(ofRow: row.rowid)
        let new = regroup ? try group(of: row) : old
        if old == new, let group = old, let index = try view.withList(group, { try $0.index(of: row.rowid) }),
            try !resort || staysInPlace(row, at: index, in: group)
        {
            try view.noteUpdated(row.rowid, key: row.collectionKey, group: group, index: index, parts: parts)
            return
        }
        if let old { try view.remove(row.rowid, key: row.collectionKey, from: old) }
        if let new { try insert(row, into: new) }
    }

    /// Whether the changed `row`, at `index` of `group`, still sorts between its neighbours (ties
    /// keep their order), so it need not move: most edits do not change the sort order.
    private func staysInPlace(_ row: ExtensionRow, at index: Int, in group: String) throws -> Bool {
        let keys = try view.sortKeys()
        let (previous, next) = try view.withList(group) { list in
            (index > 0 ? try list.rowid(at: index - 1) : nil, try list.rowid(at: index + 1))
        }
        return try keys.sorts(row, after: previous, before: next, inGroup: group) { rowid in
            try view.sortRow(rowid, inGroup: group)
        }
    }

    private func insert(_ row: ExtensionRow, into group: String) throws {
        let keys = try view.sortKeys()
        try view.insert(row.rowid, key: row.collectionKey, into: group) { list in
            // The search ends among the rows of one page: those are read from the page once.
            var page: (first: Int, rowids: [Int64]) = (0, [])
            return try keys.index(of: row, amongRows: list.count, inGroup: group) { index in
                if index < page.first || index >= page.first + page.rowids.count {
                    guard let found = try list.rowids(onPageOf: index) else {
                        throw DatabaseError(
                            .corrupt, "group \"\(group)\" of view \"\(view.registeredName)\" has no row \(index)")
                    }
                    page = found
                }
                return page.rowids[index - page.first]
            } load: { rowid in
                try view.sortRow(rowid, inGroup: group)
            }
        }
    }

    // MARK: Commit

    override func didCommit() {
        super.didCommit()
        view.forgetSortKeys()
        view.changeableLogic.commit()
    }

    override func didRollback() {
        super.didRollback()
        view.forgetSortKeys()
    }
}
