/// An ``AutoView`` inside one transaction, returned by
/// `tx.extension(name, as: AutoViewTransaction.self)`: everything a ``ViewTransaction`` reads,
/// and, in a read-write transaction, changing the view's grouping and sorting.
public final class AutoViewTransaction: ViewTransaction {
    let configuration: AutoView
    /// The grouping, sorting and tag (changed by ``setGrouping(_:sorting:versionTag:)``).
    private(set) var changeableLogic: ChangeableViewLogic<AutoViewLogic>
    var logic: AutoViewLogic { changeableLogic.current }
    /// The rows the sorting compared in this write, decoded (made on first use, for ``logic``).
    private var keptSortKeys: ViewSortKeys?

    init(context: ExtensionContext, state: ViewConnectionState, configuration: AutoView) {
        self.configuration = configuration
        self.changeableLogic = ChangeableViewLogic(
            in: context.registration,
            initial: AutoViewLogic(
                grouping: configuration.grouping, sorting: configuration.sorting,
                versionTag: configuration.versionTag))
        super.init(context: context, state: state)
    }

    override var currentVersionTag: String { logic.versionTag }

    /// Replaces the view's grouping and sorting and rebuilds it in this transaction.
    ///
    /// As YapDatabase's `setGrouping:sorting:versionTag:`, every group is cleared and every row
    /// placed again, so a reader's changes show the rows that moved. Every connection uses the new logic once the
    /// transaction commits; a persistent view records `versionTag`, so registering it at the
    /// next launch with that tag keeps the pages, and with another rebuilds them.
    /// - Complexity: O(n log n) in the rows of the allowed collections.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction, or what the grouping,
    ///   the sorting and writing throw (the transaction then rolls back).
    public func setGrouping(_ grouping: ViewGrouping, sorting: ViewSorting, versionTag: String) throws {
        _ = try context.writeTransaction()
        changeableLogic.replace(with: AutoViewLogic(grouping: grouping, sorting: sorting, versionTag: versionTag))
        forgetSortKeys()
        try context.tables.recordVersionTag(versionTag)
        try removeAllRows(recordingEachRow: true)
        try populate(recording: true)
    }

    /// Replaces the view's sorting, keeping its grouping (see ``setGrouping(_:sorting:versionTag:)``).
    /// - Throws: as ``setGrouping(_:sorting:versionTag:)``.
    public func setSorting(_ sorting: ViewSorting, versionTag: String) throws {
        try setGrouping(logic.grouping, sorting: sorting, versionTag: versionTag)
    }

    /// Places every row of the allowed collections.
    ///
    /// Rows are grouped, then each group sorted (stably, so rows that compare the same keep
    /// their rowid order). Registration leaves out the records,
    /// which no reader needs.
    func populate(recording: Bool) throws {
        try prepareToWrite()
        let transaction = try context.transaction()
        let (grouping, sorting) = (logic.grouping, logic.sorting)
        var groups: [String: [ExtensionRow]] = [:]
        try context.enumerateRows(
            in: configuration.allowedCollections,
            readingObject: grouping.readsObject || sorting.kind.readsObject,
            readingMetadata: grouping.readsMetadata || sorting.kind.readsMetadata
        ) { row in
            var group: String?
            try grouping.fill(&group, for: row, in: transaction)
            if let group { groups[group, default: []].append(row) }
        }
        for (group, rows) in groups.sorted(by: { $0.key < $1.key }) {
            let sorted = try rows.sorted { try sorting.compare(transaction, group, $0, $1) == .orderedAscending }
            if recording {
                for (index, row) in sorted.enumerated() {
                    try insert(row.rowid, key: row.collectionKey, into: group, at: index)
                }
            } else {
                try withList(group) { list in
                    for row in sorted { _ = try list.insert(row.rowid, at: list.count) }
                }
                for row in sorted { groupOverride[row.rowid] = group }
            }
        }
    }

    /// The rows the sorting compared so far in this transaction, decoded.
    /// - Throws: ``DatabaseError`` `.misuse` once the transaction ended.
    func sortKeys() throws -> ViewSortKeys {
        if let keptSortKeys { return keptSortKeys }
        let made = logic.sorting.makeKeys(try context.transaction())
        keptSortKeys = made
        return made
    }

    /// Forgets the decoded row `rowid`, whose values changed or which left.
    func forgetSortRow(_ rowid: Int64) {
        keptSortKeys?.forget(rowid)
    }

    /// Drops every decoded row: the sorting changed, rowids may be reused, or the transaction
    /// ended (the rows hold it).
    func forgetSortKeys() {
        keptSortKeys = nil
    }

    /// Row `rowid` of `group`, read for the sorting.
    /// - Throws: ``DatabaseError`` `.corrupt` when the row is gone, or what reading throws.
    func sortRow(_ rowid: Int64, inGroup group: String) throws -> ExtensionRow {
        let kind = logic.sorting.kind
        guard
            let row = try context.row(
                forRowid: rowid, readingObject: kind.readsObject, readingMetadata: kind.readsMetadata)
        else {
            throw DatabaseError(.corrupt, "group \"\(group)\" of view \"\(registeredName)\" lists a row that is gone")
        }
        return row
    }
}
