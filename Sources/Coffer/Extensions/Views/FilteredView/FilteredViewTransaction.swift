/// A ``FilteredView`` inside one transaction, returned by
/// `tx.extension(name, as: FilteredViewTransaction.self)`: everything a ``ViewTransaction``
/// reads, and, in a read-write transaction, changing the filter.
public final class FilteredViewTransaction: ViewTransaction {
    let configuration: FilteredView
    /// The filter and tag (changed by ``setFiltering(_:versionTag:)``).
    private(set) var changeableLogic: ChangeableViewLogic<FilteredViewLogic>
    var logic: FilteredViewLogic { changeableLogic.current }

    init(context: ExtensionContext, state: ViewConnectionState, configuration: FilteredView) {
        self.configuration = configuration
        self.changeableLogic = ChangeableViewLogic(
            in: context.registration,
            initial: FilteredViewLogic(filtering: configuration.filtering, versionTag: configuration.versionTag))
        super.init(context: context, state: state)
    }

    override var currentVersionTag: String { logic.versionTag }

    /// The registered name of the view this one filters.
    public var parentViewName: String { configuration.parentViewName }

    /// Replaces the view's filter and filters the parent's rows again in this transaction
    /// (YapDatabase's `setFiltering:versionTag:`).
    ///
    /// Only the rows whose answer changed come or go, so a reader's changes show exactly those,
    /// and the views filtering this one follow. Every connection uses the new filter once the
    /// transaction commits; a persistent view records `versionTag`.
    /// - Complexity: O(n) in the parent's rows.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction, or what the filter and
    ///   writing throw (the transaction then rolls back).
    public func setFiltering(_ filtering: ViewFiltering, versionTag: String) throws {
        _ = try context.writeTransaction()
        changeableLogic.replace(with: FilteredViewLogic(filtering: filtering, versionTag: versionTag))
        try context.tables.recordVersionTag(versionTag)
        try refilter()
    }

    /// Walks the parent's rows in order, inserting those the filter now keeps and removing those
    /// it no longer keeps; a row kept before and now stays where it is.
    private func refilter() throws {
        try prepareToWrite()
        let parent = try parent()
        for group in try groups() where try parent.numberOfItems(inGroup: group) == 0 {
            try removeAll(inGroup: group)
        }
        for group in try parent.groups() {
            var index = 0
            for rowid in try rowids(of: parent, inGroup: group) {
                let row = try parentRow(rowid, inGroup: group)
                let kept = try keeps(row, inGroup: group)
                let shown = try self.group(ofRow: rowid) == group
                if kept && !shown {
                    try insert(rowid, key: row.collectionKey, into: group, at: index)
                } else if !kept && shown {
                    try remove(rowid, key: row.collectionKey, from: group)
                }
                if kept { index += 1 }
            }
        }
    }

    // MARK: Following the parent

    /// The parent view in this transaction.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when the parent is not a view.
    func parent() throws -> ViewTransaction {
        try context.transaction().extension(parentViewName, as: ViewTransaction.self)
    }

    /// Places every row of the parent the filter keeps, group by group in the parent's order,
    /// without records: registration needs none.
    func populate() throws {
        try prepareToWrite()
        let parent = try parent()
        for group in try parent.groups() {
            var kept: [Int64] = []
            for rowid in try rowids(of: parent, inGroup: group)
            where try keeps(parentRow(rowid, inGroup: group), inGroup: group) {
                kept.append(rowid)
            }
            try withList(group) { list in
                for rowid in kept { _ = try list.insert(rowid, at: list.count) }
            }
            for rowid in kept { groupOverride[rowid] = group }
        }
    }

    /// The rowids of `group` of `parent`, in order.
    private func rowids(of parent: ViewTransaction, inGroup group: String) throws -> [Int64] {
        var rowids: [Int64] = []
        try parent.withList(group) { list in try list.enumerate { _, rowid, _ in rowids.append(rowid) } }
        return rowids
    }

    /// Applies a change the parent just made.
    func parentChanged(_ event: ViewEvent) throws {
        try prepareToWrite()
        switch event {
        case .inserted(let rowid, let key, let group):
            if try keeps(parentRow(rowid, inGroup: group), inGroup: group) {
                try insertInParentOrder(rowid, key: key, into: group)
            }
        case .removed(let rowid, let key, let group):
            if try self.group(ofRow: rowid) == group { try remove(rowid, key: key, from: group) }
        case .updated(let rowid, let key, let group, let parts):
            try parentUpdated(rowid, key: key, group: group, parts: parts)
        case .cleared(let group, let rowsStay):
            // Rows about to be placed again are recorded one by one, so each delete pairs with its insert.
            try removeAll(inGroup: group, recordingEachRow: rowsStay)
        }
    }

    private func parentUpdated(_ rowid: Int64, key: CollectionKey, group: String, parts: ViewChangedParts) throws {
        let current = try self.group(ofRow: rowid)
        let refilter = current == nil || logic.filtering.runs(onChangeOf: parts)
        let kept = refilter ? try keeps(parentRow(rowid, inGroup: group), inGroup: group) : true
        if let current, current != group || !kept {
            try remove(rowid, key: key, from: current)
        } else if current != nil, let index = try withList(group, { try $0.index(of: rowid) }) {
            // The parent kept the row in place, so it stays between the same neighbours here.
            try noteUpdated(rowid, key: key, group: group, index: index, parts: parts)
            return
        }
        if kept, try self.group(ofRow: rowid) == nil { try insertInParentOrder(rowid, key: key, into: group) }
    }

    private func insertInParentOrder(_ rowid: Int64, key: CollectionKey, into group: String) throws {
        try insertInParentOrder(rowid, key: key, into: group, parent: parent())
    }

    /// The row `rowid` of the parent's `group`, read for the filter.
    private func parentRow(_ rowid: Int64, inGroup group: String) throws -> ExtensionRow {
        let kind = logic.filtering.kind
        guard
            let row = try context.row(
                forRowid: rowid, readingObject: kind.readsObject, readingMetadata: kind.readsMetadata)
        else {
            throw DatabaseError(
                .corrupt, "group \"\(group)\" of view \"\(parentViewName)\" lists a row that is gone")
        }
        return row
    }

    private func keeps(_ row: ExtensionRow, inGroup group: String) throws -> Bool {
        try logic.filtering.keeps(context.transaction(), group, row)
    }
}
