extension ViewMappings {
    /// Whether `group` is hidden while empty (a "dynamic section").
    public func isDynamicSection(forGroup group: String) -> Bool {
        dynamicSections[group] ?? dynamicSectionsDefault
    }

    /// Makes `group` disappear from the sections while it is empty, or stay as an empty
    /// section; a group the mappings do not list is ignored.
    public mutating func setIsDynamicSection(_ isDynamic: Bool, forGroup group: String) {
        guard isValidGroup(group) else { return }
        dynamicSections[group] = isDynamic
    }

    /// The "hide while empty" setting of every group, as last set for all of them at once.
    public var isDynamicSectionForAllGroups: Bool {
        get { dynamicSectionsDefault }
        set {
            dynamicSections.removeAll()
            dynamicSectionsDefault = newValue
        }
    }

    /// The range shown of `group`, as it was set (pinned to the end the UI sees), with its
    /// current length and offset; `nil` when the whole group is shown.
    public func rangeOptions(forGroup group: String) -> ViewRangeOptions? {
        guard let options = rangeOptions[group] else { return nil }
        return reversedGroups.contains(group) ? options.reversed() : options
    }

    /// Shows only a range of `group`, or the whole group again when `options` is `nil`; a
    /// group the mappings do not list is ignored.
    ///
    /// The pin is as the UI sees it: "the first 20 rows" of a reversed group are the last 20
    /// of the view's group. Once the mappings have counts, the length is cut to the rows
    /// available at once.
    public mutating func setRangeOptions(_ options: ViewRangeOptions?, forGroup group: String) {
        guard let options else {
            rangeOptions[group] = nil
            return
        }
        guard isValidGroup(group) else { return }
        let stored = reversedGroups.contains(group) ? options.reversed() : options
        if hasUpdated {
            rangeOptions[group] = fittedToCount(stored, group: group)
            updateVisibility()
        } else {
            rangeOptions[group] = stored
        }
    }

    /// The offsets of the neighbouring rows whose drawing depends on a row of `group`, as the
    /// UI sees them (`-1`: the row above).
    public func cellDrawingDependencyOffsets(forGroup group: String) -> Set<Int> {
        let offsets = dependencies[group] ?? []
        return reversedGroups.contains(group) ? Set(offsets.map { -$0 }) : offsets
    }

    /// Declares that drawing a row of `group` depends on the rows at `offsets` from it.
    ///
    /// `-1` is the row above, `1` the one below. A change to a row then also reports an update
    /// of the rows that look at it, for example to redraw a date header or a bubble's tail.
    /// Zero offsets are dropped; a group the mappings do not list is ignored.
    public mutating func setCellDrawingDependencyOffsets(_ offsets: Set<Int>, forGroup group: String) {
        guard isValidGroup(group) else { return }
        let valid = offsets.filter { $0 != 0 }
        dependencies[group] = reversedGroups.contains(group) ? Set(valid.map { -$0 }) : valid
    }

    /// Declares that drawing a row of `group` depends on the row at `offset` from it.
    public mutating func setCellDrawingDependency(forNeighboringCellWithOffset offset: Int, forGroup group: String) {
        setCellDrawingDependencyOffsets([offset], forGroup: group)
    }

    /// Whether `group` is shown in reverse order (its last row first).
    public func isReversed(forGroup group: String) -> Bool {
        reversedGroups.contains(group)
    }

    /// Shows `group` in reverse order, or in the view's order again; a group the mappings do
    /// not list is ignored.
    ///
    /// A range or drawing dependencies set before keep meaning what they meant to the UI:
    /// "the first 20 rows" stay the 20 at the top.
    public mutating func setIsReversed(_ isReversed: Bool, forGroup group: String) {
        guard isValidGroup(group), reversedGroups.contains(group) != isReversed else { return }
        if isReversed { reversedGroups.insert(group) } else { reversedGroups.remove(group) }
        // Internally ranges and dependencies are kept in the group's own index order, so a
        // flip of direction flips what is stored.
        if let options = rangeOptions[group] {
            rangeOptions[group] = options.reversed()
        }
        if let offsets = dependencies[group] {
            dependencies[group] = Set(offsets.map { -$0 })
        }
    }

    /// Folds all groups into one section named `name` while they hold fewer than `threshold`
    /// rows in total; a threshold of zero, or a name that is one of the groups, turns folding
    /// off.
    public mutating func setAutoConsolidateGroups(threshold: Int, name: String) {
        autoConsolidateGroupsThreshold = max(threshold, 0)
        consolidatedGroupName = name
        validateAutoConsolidation()
        if hasUpdated { updateVisibility() }
    }

    /// Turns folding off when its section name collides with a group, or when it is half
    /// configured.
    mutating func validateAutoConsolidation() {
        if let name = consolidatedGroupName, allGroups.contains(name) {
            consolidatedGroupName = nil
        }
        if consolidatedGroupName == nil || autoConsolidateGroupsThreshold == 0 {
            consolidatedGroupName = nil
            autoConsolidateGroupsThreshold = 0
        }
    }
}
