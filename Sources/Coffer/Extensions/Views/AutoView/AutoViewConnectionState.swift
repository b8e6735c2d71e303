/// What one connection knows of a view at its snapshot: each group's page tree, the group of
/// each page, and the pages it has read.
struct ViewLayout {
    var trees: [String: ViewPageTree] = [:]
    var groupOfPage: [ViewPageTree.PageID: String] = [:]
    var pages: [ViewPageTree.PageID: ViewPage] = [:]
    /// Groups another connection changed since they were read: read again before use.
    var staleGroups: Set<String> = []
}

/// A view's state on one connection: its layout, kept in step with other connections' commits.
final class AutoViewConnectionState: ExtensionConnectionState {
    let view: AutoView
    let registration: ExtensionRegistration
    /// Nil until first read, and after a reset.
    var layout: ViewLayout?

    init(view: AutoView, registration: ExtensionRegistration) {
        self.view = view
        self.registration = registration
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        AutoViewMaintainer(AutoViewTransaction(context: context, state: self))
    }

    func noteCommitted(_ changes: AutoViewChanges) {
        guard layout != nil else { return }
        layout?.staleGroups.formUnion(changes.changedGroups)
        for page in changes.changedPages { layout?.pages[page] = nil }
    }

    func flushMemory() {
        layout?.pages = [:]
    }

    func reset() {
        layout = nil
    }
}
