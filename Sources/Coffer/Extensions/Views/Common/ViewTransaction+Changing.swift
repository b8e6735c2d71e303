/// The changes every kind of view makes to its groups, each recorded for readers and passed on
/// to the views that follow this one.
extension ViewTransaction {
    /// Puts row `rowid` (`key`) at `index` of `group`.
    /// - Precondition: the row is in no group of the view; `index` is in `0...count`.
    func insert(_ rowid: Int64, key: CollectionKey, into group: String, at index: Int) throws {
        try insert(rowid, key: key, into: group) { _ in index }
    }

    /// Puts row `rowid` (`key`) in `group` at the index `place` finds in the group's list, with
    /// the list opened once for both.
    /// - Precondition: the row is in no group of the view; the index is in `0...count`.
    func insert(
        _ rowid: Int64, key: CollectionKey, into group: String, at place: (inout ViewGroupList) throws -> Int
    ) throws {
        let (index, inserted, wasEmpty) = try withList(group) { list in
            let index = try place(&list)
            return (index, try list.insert(rowid, at: index), list.count == 1)
        }
        guard inserted else {
            throw DatabaseError(
                .misuse, "index \(index) is out of range for group \"\(group)\" of view \"\(registeredName)\"")
        }
        groupMutations[group, default: 0] += 1
        if wasEmpty { records.append(.insertGroup(group)) }
        records.append(.insertRow(key, group: group, index: index))
        groupOverride[rowid] = group
        try tellFollowers(.inserted(rowid, key: key, group: group))
    }

    /// Inserts `rowid` where `parent`'s order puts it among this group's rows, for a view whose
    /// groups are subsequences of its parent's (a filtered view, a search over a view): by
    /// binary search on their indexes in the parent.
    func insertInParentOrder(_ rowid: Int64, key: CollectionKey, into group: String, parent: ViewTransaction) throws {
        let target = try parentIndex(of: rowid, inGroup: group, parent: parent)
        let count = try numberOfItems(inGroup: group)
        var (low, high) = (0, count)
        // Rows often arrive at the end of the parent: one comparison with the last row places those.
        if count > 0, try parentIndex(ofRowAt: count - 1, inGroup: group, parent: parent) < target {
            low = count
        }
        while low < high {
            let middle = (low + high) / 2
            if try parentIndex(ofRowAt: middle, inGroup: group, parent: parent) < target {
                low = middle + 1
            } else {
                high = middle
            }
        }
        try insert(rowid, key: key, into: group, at: low)
    }

    func parentIndex(ofRowAt index: Int, inGroup group: String, parent: ViewTransaction) throws -> Int {
        guard let rowid = try withList(group, { try $0.rowid(at: index) }) else {
            throw DatabaseError(
                .corrupt, "group \"\(group)\" of view \"\(registeredName)\" has no row at index \(index)")
        }
        return try parentIndex(of: rowid, inGroup: group, parent: parent)
    }

    func parentIndex(of rowid: Int64, inGroup group: String, parent: ViewTransaction) throws -> Int {
        guard let index = try parent.withList(group, { try $0.index(of: rowid) }) else {
            throw DatabaseError(
                .corrupt,
                "view \"\(registeredName)\" lists a row of group \"\(group)\" that its parent "
                    + "\"\(parent.registeredName)\" does not")
        }
        return index
    }

    /// Takes row `rowid` (`key`) out of `group`.
    /// - Returns: the index it had, or nil when it was not in the group.
    @discardableResult
    func remove(_ rowid: Int64, key: CollectionKey, from group: String) throws -> Int? {
        let (index, emptied) = try withList(group) { list in (try list.remove(rowid), list.count == 0) }
        guard let index else { return nil }
        groupMutations[group, default: 0] += 1
        records.append(.deleteRow(key, group: group, index: index))
        if emptied { records.append(.deleteGroup(group)) }
        groupOverride[rowid] = .some(nil)
        try tellFollowers(.removed(rowid, key: key, group: group))
        return index
    }

    /// Records that row `rowid` (`key`), at `index` of `group`, changed in place.
    func noteUpdated(_ rowid: Int64, key: CollectionKey, group: String, index: Int, parts: ViewChangedParts) throws {
        records.append(.updateRow(key, group: group, index: index, parts: parts))
        try tellFollowers(.updated(rowid, key: key, group: group, parts: parts))
    }

    /// Takes every row out of `group`, one page at a time, recorded as the group cleared or, with
    /// `recordingEachRow`, as each of its rows deleted (see ``removeAllRows(recordingEachRow:)``).
    func removeAll(inGroup group: String, recordingEachRow: Bool = false) throws {
        let count = try numberOfItems(inGroup: group)
        guard count > 0 else { return }
        groupMutations[group, default: 0] += 1
        records.append(contentsOf: recordingEachRow ? try rowDeletions(in: group) : [.clearGroup(group)])
        try withList(group) { list in
            while list.count > 0, let rowid = try list.remove(at: list.count - 1) {
                groupOverride[rowid] = .some(nil)
            }
        }
        records.append(.deleteGroup(group))
        try tellFollowers(.cleared(group, rowsStay: recordingEachRow))
    }

    /// Empties the view at once (its tables too), as removing every collection does.
    ///
    /// Each group is recorded as cleared, or, with `recordingEachRow`, as each of its rows
    /// deleted (last first, with its key): a view about to place the same rows again (as
    /// YapDatabase's `repopulateView`) lets a reader's changes pair each row's delete with its
    /// insert, so a row that stays reads as moved rather than deleted and inserted.
    func removeAllRows(recordingEachRow: Bool = false) throws {
        try prepareToWrite()
        // Read before the pages go, so other connections learn which pages to forget.
        let emptied = try layout()
        let groups = try groups()
        for group in groups {
            records.append(contentsOf: recordingEachRow ? try rowDeletions(in: group) : [.clearGroup(group)])
            records.append(.deleteGroup(group))
            writtenGroups.insert(group)
        }
        try store.removeAll()
        writtenPages.formUnion(emptied.groupOfPage.keys)
        for list in lists.values { writtenPages.formUnion(list.tree.pages.map(\.page)) }
        working = ViewLayout()
        lists = [:]
        groupOverride = [:]
        clearedAll = true
        allGroupMutations += 1
        for group in groups { try tellFollowers(.cleared(group, rowsStay: recordingEachRow)) }
    }

    /// A delete record for each row of `group`, from the last row to the first (so that each
    /// index is the row's when it goes).
    private func rowDeletions(in group: String) throws -> [ViewChangeRecord] {
        let count = try numberOfItems(inGroup: group)
        guard count > 0 else { return [] }
        var rowids: [(index: Int, rowid: Int64)] = []
        try withList(group) { list in
            try list.enumerate(from: count - 1, reverse: true) { index, rowid, _ in rowids.append((index, rowid)) }
        }
        return try rowids.map { index, rowid in
            guard
                let key = try context.row(forRowid: rowid, readingObject: false, readingMetadata: false)?.collectionKey
            else {
                throw DatabaseError(
                    .corrupt, "group \"\(group)\" of view \"\(registeredName)\" lists a row that is gone")
            }
            return .deleteRow(key, group: group, index: index)
        }
    }

    // MARK: Followers

    /// Passes `event` to every view that follows this one, now that this view shows it.
    private func tellFollowers(_ event: ViewEvent) throws {
        for follower in try followers() { try follower.parentChanged(event) }
    }

    /// The views registered over this one, in registration order.
    private func followers() throws -> [any ViewFollower] {
        let transaction = try context.transaction()
        let entries = transaction.extensionEntries
        if let followerCache, followerCache.entries == entries.count { return followerCache.followers }
        let followers = entries.compactMap { entry -> (any ViewFollower)? in
            guard (entry.implementation as? any FollowingView)?.parentViewName == registeredName else { return nil }
            return transaction.extensionTransaction(named: entry.name) as? any ViewFollower
        }
        followerCache = (entries.count, followers)
        return followers
    }
}

/// A change to one view that the views following it (``FilteredView``s) apply to themselves.
enum ViewEvent {
    /// A row entered `group`.
    case inserted(Int64, key: CollectionKey, group: String)
    /// A row left `group`.
    case removed(Int64, key: CollectionKey, group: String)
    /// A row of `group` changed in place.
    case updated(Int64, key: CollectionKey, group: String, parts: ViewChangedParts)
    /// Every row left `group`; `rowsStay` when they are still in the database, about to be
    /// placed again (the view's logic changed).
    case cleared(String, rowsStay: Bool)
}

/// A view defined over another view.
protocol FollowingView {
    /// The registered name of the view it follows.
    var parentViewName: String { get }
}

/// The transaction side of a view that follows another: told of each change to its parent, in
/// the order they happen.
protocol ViewFollower: AnyObject {
    /// Applies the parent's `event`; the parent already shows it.
    func parentChanged(_ event: ViewEvent) throws
}
