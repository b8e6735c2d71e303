extension ViewMappings {
    /// The group shown as `section`, or `nil` when there is no such section; while folded,
    /// section zero is the folded section's name.
    public func group(forSection section: Int) -> String? {
        if showsConsolidatedGroup { return section == 0 ? consolidatedGroupName : nil }
        return visibleGroupList.indices.contains(section) ? visibleGroupList[section] : nil
    }

    /// The section `group` is shown as, or `nil` when it is hidden or unknown; while folded,
    /// every visible group (and the folded section's name) is section zero.
    public func section(forGroup group: String) -> Int? {
        if showsConsolidatedGroup {
            return group == consolidatedGroupName || visibleGroupList.contains(group) ? 0 : nil
        }
        return visibleGroupList.firstIndex(of: group)
    }

    /// The view's group and index shown at `indexPath`, or `nil` when no row is shown there.
    ///
    /// With ranges, reversal or folding the UI's row is not the view's index: row 0 of the
    /// last 20 rows of a 100-row group is index 80.
    public func groupAndIndex(for indexPath: ViewIndexPath) -> (group: String, index: Int)? {
        groupAndIndex(forRow: indexPath.row, inSection: indexPath.section)
    }

    /// The view's group and index shown at `row` of `section`, or `nil` when no row is shown
    /// there.
    public func groupAndIndex(forRow row: Int, inSection section: Int) -> (group: String, index: Int)? {
        if showsConsolidatedGroup {
            return section == 0 ? groupAndIndex(forConsolidatedRow: row) : nil
        }
        guard let group = group(forSection: section), let index = index(forRow: row, inGroup: group) else {
            return nil
        }
        return (group, index)
    }

    /// The view's index shown at `row` of `section`, or `nil` when no row is shown there.
    public func index(forRow row: Int, inSection section: Int) -> Int? {
        guard let group = group(forSection: section) else { return nil }
        return index(forRow: row, inGroup: group)
    }

    /// The index in `group` shown at `row` of the group's section, or `nil` when no row is
    /// shown there; for the folded section's name, the index inside whichever group holds
    /// that row.
    public func index(forRow row: Int, inGroup group: String) -> Int? {
        if isUsingConsolidatedGroup, group == consolidatedGroupName {
            return groupAndIndex(forConsolidatedRow: row)?.index
        }
        let visible = visibleCount(forGroup: group)
        guard row >= 0, row < visible else { return nil }
        let reversed = reversedGroups.contains(group)
        guard let options = rangeOptions[group] else {
            return reversed ? fullCount(forGroup: group) - row - 1 : row
        }
        switch options.pin {
        case .beginning:
            return reversed ? options.offset + options.length - 1 - row : options.offset + row
        case .end:
            let full = fullCount(forGroup: group)
            return reversed ? full - options.offset - 1 - row : full - options.offset - options.length + row
        }
    }

    /// The group and index shown at `row` of the folded section, or `nil` past its end.
    ///
    /// With groups A = [Alice], B = [Barney, Bob] and C = [Chris], row 2 is (B, 1) and row 3
    /// is (C, 0).
    public func groupAndIndex(forConsolidatedRow row: Int) -> (group: String, index: Int)? {
        guard row >= 0 else { return nil }
        var offset = 0
        for group in visibleGroupList {
            let count = visibleCount(forGroup: group)
            if row < offset + count, count > 0 {
                guard let index = index(forRow: row - offset, inGroup: group) else { return nil }
                return (group, index)
            }
            offset += count
        }
        return nil
    }

    /// The index path at which the UI shows `index` of `group`, or `nil` when that row is not
    /// shown (outside the range, a hidden group, or out of bounds).
    public func indexPath(forIndex index: Int, inGroup group: String) -> ViewIndexPath? {
        if showsConsolidatedGroup {
            return consolidatedRow(forIndex: index, inGroup: group).map { ViewIndexPath(section: 0, row: $0) }
        }
        guard let section = section(forGroup: group), let row = row(forIndex: index, inGroup: group) else {
            return nil
        }
        return ViewIndexPath(section: section, row: row)
    }

    /// The row of its section at which the UI shows `index` of `group`, or `nil` when that
    /// row is not shown.
    public func row(forIndex index: Int, inGroup group: String) -> Int? {
        if isUsingConsolidatedGroup, group == consolidatedGroupName {
            return consolidatedRow(forIndex: index, inGroup: group)
        }
        let full = fullCount(forGroup: group)
        guard index >= 0, index < full else { return nil }
        let reversed = reversedGroups.contains(group)
        guard let options = rangeOptions[group] else {
            return reversed ? full - index - 1 : index
        }
        let visible = visibleCount(forGroup: group)
        switch options.pin {
        case .beginning:
            guard index >= options.offset else { return nil }
            let row = index - options.offset
            guard row < visible else { return nil }
            return reversed ? visible - row - 1 : row
        case .end:
            let upperBound = full - options.offset - 1
            guard index <= upperBound else { return nil }
            let lowerBound = upperBound - visible + 1
            guard index >= lowerBound else { return nil }
            return reversed ? upperBound - index : index - lowerBound
        }
    }

    /// The row of the folded section at which the UI shows `index` of `group`, or `nil` when
    /// that row is not shown.
    public func consolidatedRow(forIndex index: Int, inGroup group: String) -> Int? {
        var offset = 0
        for visible in visibleGroupList {
            if visible == group {
                return row(forIndex: index, inGroup: group).map { offset + $0 }
            }
            offset += visibleCount(forGroup: visible)
        }
        return nil
    }
}
