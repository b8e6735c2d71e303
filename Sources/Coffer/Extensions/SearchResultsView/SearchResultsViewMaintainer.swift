/// The platform's side of a ``SearchResultsView`` in one transaction: over a parent view it acts
/// on the parent's changes, with its own grouping on the database's hooks; rows the full-text
/// table could not answer for yet are placed at the flush.
final class SearchResultsViewMaintainer: ViewMaintainer<SearchResultsViewTransaction>, ViewFollower {
    private var configuration: SearchResultsView { view.configuration }
    private var hasOwnGrouping: Bool { configuration.parentName == nil }

    override func createTables() throws {
        try view.checkConfiguration()
        try super.createTables()
        try view.searchStore.createTables()
        try view.createProbe()
    }

    /// A new view shows nothing until the first search.
    override func populate() throws {
        try view.checkConfiguration()
    }

    // MARK: Over a parent view

    func parentChanged(_ event: ViewEvent) throws {
        switch event {
        case .inserted(let rowid, _, _):
            try view.rowChanged(rowid, .placed)
        case .updated(let rowid, _, _, let parts):
            try view.rowChanged(rowid, .updated(parts))
        case .removed(let rowid, let key, let group):
            try view.prepareToWrite()
            if try view.group(ofRow: rowid) == group { try view.leave(rowid, key: key, from: group) }
        case .cleared(let group, let rowsStay):
            try view.prepareToWrite()
            try view.forgetInfo(ofRowsIn: group)
            try view.removeAll(inGroup: group, recordingEachRow: rowsStay)
        }
    }

    // MARK: With its own grouping

    override func didInsert(_ row: ExtensionRow) throws {
        guard hasOwnGrouping, configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.rowChanged(row.rowid, .placed)
    }

    override func didUpdate(_ row: ExtensionRow) throws {
        try changed(row, [.object, .metadata])
    }

    override func didReplaceObject(_ row: ExtensionRow) throws {
        try changed(row, .object)
    }

    override func didReplaceMetadata(_ row: ExtensionRow) throws {
        try changed(row, .metadata)
    }

    override func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        var parts: ViewChangedParts = []
        if object { parts.insert(.object) }
        if metadata { parts.insert(.metadata) }
        try changed(row, parts)
    }

    private func changed(_ row: ExtensionRow, _ parts: ViewChangedParts) throws {
        guard hasOwnGrouping, configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.rowChanged(row.rowid, .updated(parts))
    }

    override func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        view.pendingRows[rowid] = nil
        guard hasOwnGrouping, configuration.allowedCollections.isAllowed(row.collection) else { return }
        try view.prepareToWrite()
        if let group = try view.group(ofRow: rowid) { try view.leave(rowid, key: row, from: group) }
    }

    /// Each row of a removed collection leaves its group on its own, so its changes say where.
    override func removesEachRow(ofCollection collection: String) -> Bool {
        hasOwnGrouping && configuration.allowedCollections.isAllowed(collection)
    }

    override func didRemoveAllCollections() throws {
        view.pendingRows = [:]
        guard hasOwnGrouping else { return }
        try view.removeAllRows()
        if configuration.keepsResultInfo { try view.searchStore.removeAllInfo() }
    }

    // MARK: Commit

    override var hasPendingChanges: Bool { !view.pendingRows.isEmpty || super.hasPendingChanges }

    override func flushPendingChanges() throws {
        try view.resolvePendingRows()
        try super.flushPendingChanges()
    }
}
