/// A view inside one transaction, returned by `tx.extension(name, as: ViewTransaction.self)`
/// for any kind of view: its groups and their rows in order, as the transaction's snapshot has
/// them (with its own uncommitted writes).
///
/// Each kind of view adds what changes it: ``AutoViewTransaction`` its grouping and sorting,
/// ``ManualViewTransaction`` its rows, ``FilteredViewTransaction`` its filter. Valid only inside
/// the transaction's closure; every method throws `misuse` afterwards.
public class ViewTransaction {
    let context: ExtensionContext
    let state: ViewConnectionState
    let store: any ViewStore
    /// The layout this transaction works on (loaded on first use).
    var working: ViewLayout?
    /// Groups opened for changes.
    var lists: [String: ViewGroupList] = [:]
    /// The view's changes so far, in order.
    var records: [ViewChangeRecord] = []
    /// The group of each row this transaction moved (nil: out of the view).
    var groupOverride: [Int64: String?] = [:]
    /// Groups and pages written so far (for other connections to read again).
    var writtenGroups: Set<String> = []
    var writtenPages: Set<ViewPageTree.PageID> = []
    var nextPageID: ViewPageTree.PageID?
    /// Every row left the view in this transaction: other connections forget what they read.
    var clearedAll = false
    /// How often each group changed in this transaction, and how often every group did: an
    /// enumeration of a group refuses a change to it.
    var groupMutations: [String: Int] = [:]
    var allGroupMutations = 0
    /// Groups whose trees this write took out of the connection's layout.
    var checkedOutGroups: Set<String> = []

    /// The followers of this view (filtered views over it) and how many registrations they were
    /// found among.
    var followerCache: (entries: Int, followers: [any ViewFollower])?

    init(context: ExtensionContext, state: ViewConnectionState) {
        self.context = context
        self.state = state
        self.store =
            state.isPersistent
            ? ViewTableStore(tables: context.tables, registeredName: context.registeredName)
            : ViewMemoryStore(context: context)
    }

    /// The name the view is registered under.
    public var registeredName: String { context.registeredName }
    /// The view's version tag: the one it was registered with, or the one its logic was last
    /// changed with (``AutoViewTransaction/setGrouping(_:sorting:versionTag:)``, for example).
    public var versionTag: String { currentVersionTag }

    /// Each kind of view says where its tag is.
    var currentVersionTag: String { "" }

    // MARK: Groups

    /// The names of the groups that hold rows, sorted.
    /// - Throws: ``DatabaseError`` from reading, `.misuse` after the transaction ended.
    public func groups() throws -> [String] {
        try trees().filter { $0.value.rowCount > 0 }.keys.sorted()
    }

    /// The number of groups that hold rows.
    /// - Throws: as ``groups()``.
    public func numberOfGroups() throws -> Int {
        try groups().count
    }

    /// The number of rows in each group, as ``ViewMappings/update(groupCounts:allGroups:)`` takes them.
    /// - Throws: as ``groups()``.
    public func groupCounts() throws -> [String: Int] {
        try trees().compactMapValues { $0.rowCount > 0 ? $0.rowCount : nil }
    }

    /// The number of rows in `group` (0 when there is no such group).
    /// - Throws: as ``groups()``.
    public func numberOfItems(inGroup group: String) throws -> Int {
        if let list = lists[group] { return list.tree.rowCount }
        return try layout().trees[group]?.rowCount ?? 0
    }

    /// The number of rows in the view.
    /// - Throws: as ``groups()``.
    public func numberOfItemsInAllGroups() throws -> Int {
        try trees().values.reduce(0) { $0 + $1.rowCount }
    }

    // MARK: Rows

    /// The collection and key of the row at `index` in `group`, or nil when out of range.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: as ``groups()``.
    public func key(at index: Int, inGroup group: String) throws -> CollectionKey? {
        guard let rowid = try withList(group, { try $0.rowid(at: index) }) else { return nil }
        return try context.row(forRowid: rowid, readingObject: false, readingMetadata: false)?.collectionKey
    }

    /// The group of the row `key` in `collection`, or nil when it is not in the view.
    /// - Throws: as ``groups()``.
    public func group(forKey key: String, inCollection collection: String?) throws -> String? {
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else { return nil }
        return try group(ofRow: rowid)
    }

    /// The group and index of the row `key` in `collection`, or nil when it is not in the view.
    /// - Complexity: O(log n), plus reading one page.
    /// - Throws: as ``groups()``.
    public func index(forKey key: String, inCollection collection: String?) throws -> (group: String, index: Int)? {
        guard let rowid = try context.rowid(forKey: key, inCollection: collection),
            let group = try group(ofRow: rowid),
            let index = try withList(group, { try $0.index(of: rowid) })
        else { return nil }
        return (group, index)
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension ViewTransaction: Sendable {}
