/// A ``ManualView`` inside one transaction: what any view reads, and putting rows in groups.
///
/// Returned by `tx.extension(name, as: ManualViewTransaction.self)`; it reads as a
/// ``ViewTransaction`` does, and changes the view in a read-write transaction. Each change is
/// recorded for readers (``Changeset/viewChangeRecords(inView:)``) like those of an ``AutoView``.
///
/// As in YapDatabase, a change that cannot apply to the database as it is returns false and
/// changes nothing: adding a row that does not exist, or one already in the view (in any group:
/// a row has one place, and moving it takes a remove first), or removing a row that is not in
/// the group. A change that is wrong whatever the data throws ``DatabaseError`` `.misuse`
/// instead of YapDatabase's `NO`: an index out of range, or any change in a read-only
/// transaction.
public final class ManualViewTransaction: ViewTransaction {
    let configuration: ManualView

    init(context: ExtensionContext, state: ViewConnectionState, configuration: ManualView) {
        self.configuration = configuration
        super.init(context: context, state: state)
    }

    override var currentVersionTag: String { configuration.versionTag }

    // MARK: Adding

    /// Adds the row `key` in `collection` at the end of `group`.
    ///
    /// - Returns: false, changing nothing, when there is no such row or it is in the view
    ///   already (in `group` or another), as YapDatabase's `addKey:inCollection:toGroup:`.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction, or what reading and
    ///   writing throw.
    @discardableResult
    public func addKey(_ key: String, inCollection collection: String?, toGroup group: String) throws -> Bool {
        try prepareChange()
        return try place(key, collection, in: group, at: numberOfItems(inGroup: group))
    }

    /// Inserts the row `key` in `collection` at `index` of `group`.
    ///
    /// The rows from `index` on move down by one.
    /// - Parameters:
    ///   - key: the row's key.
    ///   - collection: the row's collection.
    ///   - index: from 0 to the group's count (inclusive: the end of the group).
    ///   - group: the group to insert into.
    /// - Returns: false, changing nothing, when there is no such row or it is in the view
    ///   already (in `group` or another), as YapDatabase's `insertKey:inCollection:atIndex:inGroup:`.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: ``DatabaseError`` `.misuse` when `index` is out of range (checked first) or in a
    ///   read-only transaction, or what reading and writing throw.
    @discardableResult
    public func insertKey(_ key: String, inCollection collection: String?, at index: Int, inGroup group: String)
        throws -> Bool
    {
        try prepareChange()
        let count = try numberOfItems(inGroup: group)
        guard (0...count).contains(index) else {
            throw outOfRange("index \(index)", "0...\(count)", group, collection: collection, key: key)
        }
        return try place(key, collection, in: group, at: index)
    }

    // MARK: Removing

    /// Removes the row at `index` of `group`.
    ///
    /// - Returns: the collection and key of the row removed.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: ``DatabaseError`` `.misuse` when `index` is out of range (YapDatabase returns
    ///   `NO`) or in a read-only transaction, or what reading and writing throw.
    @discardableResult
    public func removeItem(at index: Int, inGroup group: String) throws -> CollectionKey {
        try prepareChange()
        let count = try numberOfItems(inGroup: group)
        guard (0..<count).contains(index) else {
            throw outOfRange("index \(index)", "0..<\(count)", group)
        }
        return try removeRow(at: index, inGroup: group)
    }

    /// Removes the rows at `range` of `group`.
    ///
    /// Each row is recorded as removed, from the last up, except when `range` is the whole group,
    /// which is cleared at once as ``removeAllItems(inGroup:)`` does.
    /// - Complexity: O(k log n) for k rows, plus reading their pages.
    /// - Throws: ``DatabaseError`` `.misuse` when `range` is not within the group or in a
    ///   read-only transaction, or what reading and writing throw.
    public func removeItems(in range: Range<Int>, inGroup group: String) throws {
        try prepareChange()
        let count = try numberOfItems(inGroup: group)
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw outOfRange("range \(range)", "0..<\(count)", group)
        }
        if range.count == count, count > 0 {
            try removeAll(inGroup: group)
            return
        }
        // From the end, so the indexes still to remove do not shift.
        for index in range.reversed() { _ = try removeRow(at: index, inGroup: group) }
    }

    /// Removes the row `key` in `collection` from `group`.
    ///
    /// - Returns: false, changing nothing, when there is no such row or it is not in `group`
    ///   (in another group, or not in the view), as YapDatabase's `removeKey:inCollection:fromGroup:`.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction, or what reading and
    ///   writing throw.
    @discardableResult
    public func removeKey(_ key: String, inCollection collection: String?, fromGroup group: String) throws -> Bool {
        try prepareChange()
        guard let rowid = try context.rowid(forKey: key, inCollection: collection),
            try self.group(ofRow: rowid) == group
        else { return false }
        let removed = try remove(rowid, key: CollectionKey(collection: collection ?? "", key: key), from: group)
        return removed != nil
    }

    /// Removes every row of `group`, recorded as the group cleared rather than row by row.
    ///
    /// - Complexity: O(n) in the group's rows, reading each page once.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction, or what reading and
    ///   writing throw.
    public func removeAllItems(inGroup group: String) throws {
        try prepareChange()
        try removeAll(inGroup: group)
    }

    // MARK: Helpers

    /// Fails unless the transaction can write, then readies the view for its first change.
    private func prepareChange() throws {
        _ = try context.writeTransaction()
        try prepareToWrite()
    }

    /// Puts the row `key` at `index` (already checked) of `group`; false when the row does not
    /// exist or is in the view already.
    private func place(_ key: String, _ collection: String?, in group: String, at index: Int) throws -> Bool {
        guard let rowid = try context.rowid(forKey: key, inCollection: collection),
            try self.group(ofRow: rowid) == nil
        else { return false }
        try insert(rowid, key: CollectionKey(collection: collection ?? "", key: key), into: group, at: index)
        return true
    }

    /// Removes the row at `index` (already checked) of `group`.
    private func removeRow(at index: Int, inGroup group: String) throws -> CollectionKey {
        let row = try row(at: index, inGroup: group, reading: .key)
        try remove(row.rowid, key: row.collectionKey, from: group)
        return row.collectionKey
    }

    /// The misuse of an index or range out of a group's bounds, naming the view and the group.
    private func outOfRange(
        _ what: String, _ bounds: String, _ group: String, collection: String? = nil, key: String? = nil
    ) -> DatabaseError {
        DatabaseError(
            .misuse, "\(what) is outside \(bounds) in group \"\(group)\" of manual view \"\(registeredName)\"",
            collection: collection, key: key)
    }
}
