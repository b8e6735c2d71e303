/// What one connection knows of a view at its snapshot: each group's page tree, the group of
/// each page, and the pages it has read.
struct ViewLayout {
    var trees: [String: ViewPageTree] = [:]
    var groupOfPage: [ViewPageTree.PageID: String] = [:]
    var pages: [ViewPageTree.PageID: ViewPage] = [:]
    /// Groups another connection changed since they were read: read again before use.
    var staleGroups: Set<String> = []
}

/// A view's state on one connection (of any kind of view): its layout, kept in step with other
/// connections' commits.
final class ViewConnectionState: ExtensionConnectionState {
    let registration: ExtensionRegistration
    /// Whether the view keeps its pages in the file.
    let isPersistent: Bool
    /// Nil until first read, and after a reset.
    var layout: ViewLayout?
    private let makeMaintainer: (ExtensionContext, ViewConnectionState) -> any ExtensionTransaction

    /// A state whose transactions `makeMaintainer` makes.
    init(
        registration: ExtensionRegistration, isPersistent: Bool,
        makeMaintainer: @escaping (ExtensionContext, ViewConnectionState) -> any ExtensionTransaction
    ) {
        self.registration = registration
        self.isPersistent = isPersistent
        self.makeMaintainer = makeMaintainer
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        makeMaintainer(context, self)
    }

    func noteCommitted(_ changes: ViewCommitChanges) {
        guard layout != nil else { return }
        if changes.clearedAll {
            layout = nil
            return
        }
        for page in changes.changedPages { layout?.pages[page] = nil }
        for group in changes.changedGroups {
            let replayed =
                layout?.staleGroups.contains(group) == false
                && changes.pageChanges[group].map { replay($0, in: group) } == true
            if !replayed { layout?.staleGroups.insert(group) }
        }
    }

    /// Applies another connection's page changes to this connection's tree of `group`; false
    /// when they do not fit it (the group is then read again on next use).
    private func replay(_ changes: ViewGroupPageChanges, in group: String) -> Bool {
        // Taken out of the layout, so that the tree changes in place.
        var tree = layout?.trees.removeValue(forKey: group) ?? ViewPageTree()
        for change in changes.structure {
            switch change {
            case .inserted(let page, let position):
                guard tree.insert(page, rows: 0, at: position) else { return false }
                layout?.groupOfPage[page] = group
            case .removed(let page):
                guard tree.remove(page) else { return false }
            }
        }
        for (page, rows) in changes.rows {
            guard tree.setRows(rows, of: page) else { return false }
        }
        layout?.trees[group] = tree.rowCount > 0 ? tree : nil
        return true
    }

    func flushMemory() {
        layout?.pages = [:]
    }

    func reset() {
        layout = nil
    }
}
