extension ViewMappings {
    /// Whether the groups are shown folded into one section right now (folding is suspended
    /// while `ViewChanges` processes a batch).
    var showsConsolidatedGroup: Bool {
        isUsingConsolidatedGroup && !autoConsolidationDisabled
    }

    /// The number of sections the UI shows: one while the groups are folded, otherwise the
    /// visible groups (hidden empty dynamic groups do not count).
    public var numberOfSections: Int {
        showsConsolidatedGroup ? 1 : visibleGroupList.count
    }

    /// The number of rows the UI shows in `section`; zero for a section that does not exist.
    public func numberOfItems(inSection section: Int) -> Int {
        if showsConsolidatedGroup { return section == 0 ? numberOfItemsInAllGroups : 0 }
        guard let group = group(forSection: section) else { return 0 }
        return numberOfItems(inGroup: group)
    }

    /// The number of rows the UI shows of `group`: its range's length when only a range is
    /// shown, otherwise its count; for the folded section's name, the rows of all groups.
    public func numberOfItems(inGroup group: String) -> Int {
        visibleCount(forGroup: group)
    }

    /// The rows the UI shows of `group`, the count the change processing maps indexes with.
    func visibleCount(forGroup group: String) -> Int {
        guard hasUpdated else { return 0 }
        if isUsingConsolidatedGroup, group == consolidatedGroupName { return numberOfItemsInAllGroups }
        if let options = rangeOptions[group] { return options.length }
        return counts[group] ?? 0
    }

    /// The number of rows `group` holds in the view, whatever part of it is shown.
    public func fullCount(forGroup group: String) -> Int {
        counts[group] ?? 0
    }

    /// The rows shown of all visible groups together: the length of the folded section.
    public var numberOfItemsInAllGroups: Int {
        guard hasUpdated else { return 0 }
        return visibleGroupList.reduce(0) { $0 + (rangeOptions[$1]?.length ?? counts[$1] ?? 0) }
    }

    /// The groups shown as sections, in order: the folded section's name alone while folded.
    public var visibleGroups: [String] {
        if showsConsolidatedGroup, let name = consolidatedGroupName { return [name] }
        return visibleGroupList
    }

    /// Whether the UI shows no row at all.
    public var isEmpty: Bool {
        guard hasUpdated else { return true }
        return visibleGroupList.allSatisfy { (rangeOptions[$0]?.length ?? counts[$0] ?? 0) == 0 }
    }

    /// Where `group`'s shown range sits inside the group.
    ///
    /// The whole group when it has no range; all zero for the folded section's name. For a
    /// reversed group the offsets are as the UI sees them.
    public func rangePosition(forGroup group: String) -> ViewRangePosition {
        if group == consolidatedGroupName {
            return ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: 0)
        }
        let count = counts[group] ?? 0
        var position: ViewRangePosition
        if let options = rangeOptions[group] {
            let far = options.offset + options.length
            let fits = far <= count
            switch options.pin {
            case .beginning:
                position = ViewRangePosition(
                    offsetFromBeginning: options.offset, offsetFromEnd: fits ? count - far : 0,
                    length: fits ? options.length : 0)
            case .end:
                position = ViewRangePosition(
                    offsetFromBeginning: fits ? count - far : 0, offsetFromEnd: options.offset,
                    length: fits ? options.length : 0)
            }
        } else {
            position = ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: count)
        }
        if reversedGroups.contains(group) {
            swap(&position.offsetFromBeginning, &position.offsetFromEnd)
        }
        return position
    }

    /// The row at which `group` starts inside the folded section (zero for a group that is not
    /// visible).
    public func rowOffset(forGroup group: String) -> Int {
        var offset = 0
        for visible in visibleGroupList {
            if visible == group { return offset }
            offset += rangeOptions[visible]?.length ?? counts[visible] ?? 0
        }
        return 0
    }
}
