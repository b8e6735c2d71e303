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
        try view.prepareToWrite()
        if let group = try view.group(ofRow: rowid) { try view.remove(rowid, key: row, from: group) }
    }

    /// Each row of a removed collection leaves its group on its own, so its changes say where.
    override func removesEachRow(ofCollection collection: String) -> Bool {
        configuration.allowedCollections.isAllowed(collection)
    }

    override func didRemoveAllCollections() throws {
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
        let transaction = try view.context.transaction()
        let compare = view.logic.sorting.compare
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
        let compare = view.logic.sorting.compare
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
        try view.insert(row.rowid, key: row.collectionKey, into: group, at: low)
    }

    /// The row at `index` of `group`, read for the sorting.
    private func neighbour(at index: Int, in group: String) throws -> ExtensionRow {
        try view.row(at: index, inGroup: group, reading: view.logic.sorting.kind)
    }

    // MARK: Commit

    override func didCommit() {
        super.didCommit()
        view.changeableLogic.commit()
    }
}
