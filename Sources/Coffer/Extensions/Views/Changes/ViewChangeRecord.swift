/// One raw change a view's write transaction records, in the order it happened.
///
/// Each record describes the view at the moment of the change: an insert's index counts the
/// rows already inserted before it in the same batch. A row that moves is recorded as a delete
/// followed by an insert. `ViewChanges` turns a batch of them (one commit's, or several
/// consecutive commits' concatenated) into the changes a UI applies. Records are values that
/// travel in changesets between threads.
public enum ViewChangeRecord: Hashable, Sendable {
    /// `group` appeared: its first row is being added.
    case insertGroup(String)
    /// `group` disappeared: its last row was removed (the row's delete comes first).
    case deleteGroup(String)
    /// `group` was emptied and removed at once, without one record per row, as a
    /// remove-all does; every row the reader saw in it counts as deleted.
    case clearGroup(String)
    /// A row was inserted at `index` of `group`.
    case insertRow(CollectionKey, group: String, index: Int)
    /// The row at `index` of `group` was removed.
    case deleteRow(CollectionKey, group: String, index: Int)
    /// The row at `index` of `group` changed in place; `parts` says what changed.
    case updateRow(CollectionKey, group: String, index: Int, parts: ViewChangedParts)
    /// The view lost track of its changes (the platform's reset changeset, for example after
    /// the view was rebuilt or a reader fell too far behind): readers must reload instead of
    /// applying changes.
    case reset

    /// Whether the record is the reset marker.
    public var isReset: Bool {
        if case .reset = self { return true }
        return false
    }

    /// Whether the record changes `group`; a reset changes every group.
    public func affects(group: String) -> Bool {
        switch self {
        case .insertGroup(let name), .deleteGroup(let name), .clearGroup(let name): name == group
        case .insertRow(_, let name, _), .deleteRow(_, let name, _), .updateRow(_, let name, _, _): name == group
        case .reset: true
        }
    }

    /// The group the record is about, or `nil` for a reset.
    public var group: String? {
        switch self {
        case .insertGroup(let name), .deleteGroup(let name), .clearGroup(let name): name
        case .insertRow(_, let name, _), .deleteRow(_, let name, _), .updateRow(_, let name, _, _): name
        case .reset: nil
        }
    }
}
