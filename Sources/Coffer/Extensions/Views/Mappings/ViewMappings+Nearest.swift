extension ViewMappings {
    /// The index path closest to `row` of `group`, to keep a selection near where it was after
    /// its row went away: the same row (or the group's last) while the group shows rows,
    /// otherwise the last row of the nearest earlier group that shows any, otherwise the first
    /// row of the nearest later one; `nil` when nothing is shown or `group` is unknown (pass a
    /// view group, not the folded section's name).
    public func nearestIndexPath(forRow row: Int, inGroup group: String) -> ViewIndexPath? {
        guard hasUpdated, let groupIndex = allGroups.firstIndex(of: group) else { return nil }

        if let visibleIndex = visibleGroupList.firstIndex(of: group) {
            let rows = numberOfItems(inGroup: group)
            if rows > 0 {
                return folded(ViewIndexPath(section: visibleIndex, row: min(max(row, 0), rows - 1)), group: group)
            }
        }
        for nearby in allGroups[..<groupIndex].reversed() {
            if let section = section(forGroup: nearby) {
                let rows = numberOfItems(inGroup: nearby)
                if rows > 0 { return folded(ViewIndexPath(section: section, row: rows - 1), group: nearby) }
            }
        }
        for nearby in allGroups[(groupIndex + 1)...] {
            if let section = section(forGroup: nearby), numberOfItems(inGroup: nearby) > 0 {
                return folded(ViewIndexPath(section: section, row: 0), group: nearby)
            }
        }
        return nil
    }

    /// `path` of `group` moved into the folded section when the groups are folded.
    private func folded(_ path: ViewIndexPath, group: String) -> ViewIndexPath {
        guard isUsingConsolidatedGroup else { return path }
        return ViewIndexPath(section: 0, row: path.row + rowOffset(forGroup: group))
    }
}
