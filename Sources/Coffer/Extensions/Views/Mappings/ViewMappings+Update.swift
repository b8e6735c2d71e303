extension ViewMappings {
    /// Feeds the mappings the group counts of the snapshot the UI now shows.
    ///
    /// `groupCounts` maps a group to its number of rows; groups missing from it count as empty
    /// and negative counts as zero. For dynamic groups, `allGroups` lists every group of the
    /// view (when `nil`, the keys of `groupCounts`), which the filter and sort turn into the
    /// sections. Each range's length is recomputed from the new counts; to move from one
    /// snapshot to the next while keeping the ranges where the changes put them, use
    /// `ViewChanges.advance(_:groupCounts:allGroups:records:)` instead.
    public mutating func update(groupCounts: [String: Int], allGroups: [String]? = nil) {
        update(groupCounts: groupCounts, allGroups: allGroups, recomputingRanges: true)
    }

    /// Feeds the mappings new counts; `recomputingRanges` is `false` when the change processing
    /// is about to move the ranges itself (the first update always computes them).
    mutating func update(groupCounts: [String: Int], allGroups candidates: [String]?, recomputingRanges: Bool) {
        if groupsAreDynamic {
            let candidates = candidates ?? groupCounts.keys.sorted()
            var picked = candidates.filter { groupFilter?($0) ?? true }
            if let groupSort { picked.sort(by: groupSort) }
            var seen = Set<String>()
            picked = picked.filter { seen.insert($0).inserted }
            if picked != allGroups {
                allGroups = picked
                validateAutoConsolidation()
            }
        }
        var newCounts: [String: Int] = [:]
        for group in allGroups {
            newCounts[group] = ViewLimits.clamp(groupCounts[group] ?? 0)
        }
        counts = newCounts

        let firstUpdate = !hasUpdated
        hasUpdated = true
        if firstUpdate || recomputingRanges {
            for (group, options) in rangeOptions {
                rangeOptions[group] = fittedToCount(options, group: group)
            }
        }
        updateVisibility()
    }

    /// `options` with its length cut to the rows `group` has beyond the offset.
    ///
    /// A fixed range asks for its requested length again, so that it grows back once the group
    /// refills; a flexible one keeps the length it has.
    func fittedToCount(_ options: ViewRangeOptions, group: String) -> ViewRangeOptions {
        let count = counts[group] ?? 0
        let desired = options.isFixedRange ? options.maxLength : options.length
        let available = options.offset >= count ? 0 : count - options.offset
        return options.with(length: min(desired, available))
    }

    /// Stores the length and offset the change processing computed for `group`'s range.
    mutating func updateRange(forGroup group: String, length: Int, offset: Int) {
        guard let options = rangeOptions[group] else { return }
        rangeOptions[group] = options.with(length: length, offset: offset)
    }

    /// Recomputes which groups are sections and whether they fold into one.
    mutating func updateVisibility() {
        var visible: [String] = []
        var total = 0
        for group in allGroups {
            let count = rangeOptions[group]?.length ?? counts[group] ?? 0
            if count > 0 || !isDynamicSection(forGroup: group) {
                visible.append(group)
            }
            total += count
        }
        visibleGroupList = visible
        isUsingConsolidatedGroup = total < autoConsolidateGroupsThreshold
    }
}
