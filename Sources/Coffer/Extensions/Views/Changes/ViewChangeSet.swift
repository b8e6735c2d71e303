/// What a list UI must do to go from one snapshot of a view to the next: apply a batch of
/// section and row changes, or reload everything.
public enum ViewChangeSet: Hashable, Sendable {
    /// The section and row changes to apply in one batch (both empty when nothing the UI shows
    /// changed).
    case changes(sections: [ViewSectionChange], rows: [ViewRowChange])
    /// The view lost track of its changes; reload the whole list from the new mappings.
    case reset

    /// The section changes, empty for a reset.
    public var sectionChanges: [ViewSectionChange] {
        if case .changes(let sections, _) = self { return sections }
        return []
    }

    /// The row changes, empty for a reset.
    public var rowChanges: [ViewRowChange] {
        if case .changes(_, let rows) = self { return rows }
        return []
    }

    /// Whether the UI must reload everything.
    public var isReset: Bool { self == .reset }

    /// Whether nothing the UI shows changed (a reset is not empty).
    public var isEmpty: Bool {
        if case .changes(let sections, let rows) = self { return sections.isEmpty && rows.isEmpty }
        return false
    }
}
