/// What a commit changed in a view (of any kind): the row and group changes in order (for
/// ``ViewChanges/advance(_:groupCounts:allGroups:records:)``), and what other connections must
/// read again.
public struct ViewCommitChanges: Sendable {
    /// The changes, in the order they happened.
    public let records: [ViewChangeRecord]
    /// Groups whose pages changed.
    let changedGroups: Set<String>
    /// Pages whose rows changed or that went.
    let changedPages: Set<ViewPageTree.PageID>
    /// For each changed group: its page insertions and removals in order, then the final row
    /// counts of the pages written, which another connection replays on its copy of the tree.
    let pageChanges: [String: ViewGroupPageChanges]
    /// Whether every row left the view (another connection forgets everything it read).
    let clearedAll: Bool
}

/// How one group's pages changed in a commit.
struct ViewGroupPageChanges: Sendable {
    var structure: [ViewPageChange]
    var rows: [ViewPageTree.PageID: Int]
}

/// Whether commits changed a view, for deciding whether a list needs updating.
extension Changeset {
    /// Whether this commit changed the rows or groups of the view registered as `view` (or reset it).
    public func hasChanges(inView view: String) -> Bool {
        isReset || unregisteredExtensions.contains(view)
            || changes(for: view, as: ViewCommitChanges.self).map { !$0.records.isEmpty } == true
    }

    /// Whether this commit changed the rows of `group` in the view registered as `view` (or reset it).
    public func hasChanges(inView view: String, group: String) -> Bool {
        isReset || unregisteredExtensions.contains(view)
            || changes(for: view, as: ViewCommitChanges.self)?.records.contains { $0.affects(group: group) } == true
    }
}

extension Changeset {
    /// The changes this commit made to the view registered as `view`, in order, for
    /// ``ViewChanges/advance(_:groupCounts:allGroups:records:)``: `[.reset]` when the changeset
    /// is a reset or the view was unregistered (a reader must reload), and empty when the view
    /// did not change.
    public func viewChangeRecords(inView view: String) -> [ViewChangeRecord] {
        if isReset || unregisteredExtensions.contains(view) { return [.reset] }
        return changes(for: view, as: ViewCommitChanges.self)?.records ?? []
    }
}
