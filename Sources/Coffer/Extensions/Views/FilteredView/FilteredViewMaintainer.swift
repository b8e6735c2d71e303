/// The platform's side of a ``FilteredView`` in one transaction: it acts on its parent's
/// changes, not on the database's hooks (the parent has applied those already).
final class FilteredViewMaintainer: ViewMaintainer<FilteredViewTransaction>, ViewFollower {
    override func populate() throws {
        guard !view.configuration.skipInitialViewPopulation else { return }
        try view.populate()
    }

    func parentChanged(_ event: ViewEvent) throws {
        try view.parentChanged(event)
    }

    override func didCommit() {
        super.didCommit()
        view.changeableLogic.commit()
    }
}
