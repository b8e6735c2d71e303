/// The platform's side of a ``ManualView`` in one transaction: the database's writes never add
/// a row, but a row of the view that changes is reported in place and one that goes leaves.
final class ManualViewMaintainer: ViewMaintainer<ManualViewTransaction> {
    // A new row cannot be in the view yet, and population has nothing to add: the app places
    // every row itself, so neither `didInsert` nor `populate` is overridden.

    override func didUpdate(_ row: ExtensionRow) throws {
        try rowChanged(row, parts: [.object, .metadata])
    }

    override func didReplaceObject(_ row: ExtensionRow) throws {
        try rowChanged(row, parts: .object)
    }

    override func didReplaceMetadata(_ row: ExtensionRow) throws {
        try rowChanged(row, parts: .metadata)
    }

    override func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws {
        var parts: ViewChangedParts = []
        if object { parts.insert(.object) }
        if metadata { parts.insert(.metadata) }
        try rowChanged(row, parts: parts)
    }

    override func didRemove(_ row: CollectionKey, rowid: Int64) throws {
        guard let group = try view.group(ofRow: rowid) else { return }
        try view.prepareToWrite()
        try view.remove(rowid, key: row, from: group)
    }

    /// Any collection may have rows in the view, and each must leave its group with its own
    /// change, so readers learn where: a whole-collection removal is reported row by row.
    override func removesEachRow(ofCollection collection: String) -> Bool {
        true
    }

    override func didRemoveAllCollections() throws {
        try view.removeAllRows()
    }

    /// Records that `row`, if the view holds it, changed in place: the app's order stands.
    private func rowChanged(_ row: ExtensionRow, parts: ViewChangedParts) throws {
        guard let group = try view.group(ofRow: row.rowid),
            let index = try view.withList(group, { try $0.index(of: row.rowid) })
        else { return }
        try view.noteUpdated(row.rowid, key: row.collectionKey, group: group, index: index, parts: parts)
    }
}
