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
        if wasEmpty { records.append(.insertGroup(group)) }
        records.append(.insertRow(key, group: group, index: index))
        groupOverride[rowid] = group
        try tellFollowers(.inserted(rowid, key: key, group: group))
    }

    /// Takes row `rowid` (`key`) out of `group`.
    /// - Returns: the index it had, or nil when it was not in the group.
    @discardableResult
    func remove(_ rowid: Int64, key: CollectionKey, from group: String) throws -> Int? {
        let (index, emptied) = try withList(group) { list in (try list.remove(rowid), list.count == 0) }
        guard let index else { return nil }
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

    /// Takes every row out of `group`, one page at a time.
    func removeAll(inGroup group: String) throws {
        let count = try numberOfItems(inGroup: group)
        guard count > 0 else { return }
        try withList(group) { list in
            while list.count > 0, let rowid = try list.remove(at: list.count - 1) {
                groupOverride[rowid] = .some(nil)
            }
        }
        records.append(.clearGroup(group))
        records.append(.deleteGroup(group))
        try tellFollowers(.cleared(group))
    }

    /// Empties the view at once (its tables too), as removing every collection does.
    func removeAllRows() throws {
        try prepareToWrite()
        // Read before the pages go, so other connections learn which pages to forget.
        let emptied = try layout()
        let groups = try groups()
        for group in groups {
            records.append(.clearGroup(group))
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
        for group in groups { try tellFollowers(.cleared(group)) }
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
    /// Every row left `group`.
    case cleared(String)
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
