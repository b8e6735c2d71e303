extension ViewChanges {
    /// Moves each group's range in the final mappings the way the batch's inserts and deletes
    /// move it: a fixed range keeps its offset and refills up to its length, a flexible one
    /// grows, shrinks and slides with the rows around it.
    static func trackRanges(_ rows: [WorkingRowChange], original: ViewMappings, final: inout ViewMappings) {
        guard !original.rangeOptions.isEmpty || !final.rangeOptions.isEmpty else { return }
        var changed = false
        for group in groupsWithRanges(original: original, final: final) {
            guard let options = original.rangeOptions[group] ?? final.rangeOptions[group] else { continue }
            let finalCount = final.fullCount(forGroup: group)
            let span = RangeSpan(options: options, groupCount: original.fullCount(forGroup: group))
            let newLength: Int
            let newOffset: Int
            if options.isFixedRange {
                newOffset = options.offset
                newLength = min(options.maxLength, max(finalCount - newOffset, 0))
            } else {
                let moved = flexibleSpan(span, options: options, rows: rows, group: group)
                newLength = moved.upper - moved.lower
                newOffset = options.pin == .beginning ? moved.lower : finalCount - moved.upper
            }
            if let current = final.rangeOptions[group], current.length != newLength || current.offset != newOffset {
                final.updateRange(forGroup: group, length: newLength, offset: newOffset)
                changed = true
            }
        }
        if changed { final.updateVisibility() }
    }

    /// The groups with a range, the original mappings' first, each once.
    static func groupsWithRanges(original: ViewMappings, final: ViewMappings) -> [String] {
        var seen = Set<String>()
        return
            (original.allGroups.filter { original.rangeOptions[$0] != nil }
            + final.allGroups.filter { final.rangeOptions[$0] != nil })
            .filter { seen.insert($0).inserted }
    }

    /// Replays the batch on a flexible range's bounds: a delete before a bound pulls it up, an
    /// insert before it (or at it, depending on the grow options) pushes it down.
    private static func flexibleSpan(
        _ span: RangeSpan, options: ViewRangeOptions, rows: [WorkingRowChange], group: String
    ) -> RangeSpan {
        var lower = span.lower
        var upper = span.upper
        var wasEmpty = upper - lower == 0
        let growPinSide = options.growOptions.contains(.pinSide)
        let growNonPinSide = options.growOptions.contains(.nonPinSide)
        // Which bound an edge insert may push depends on the side the range is pinned to.
        let growsAtLower = options.pin == .beginning ? growPinSide : growNonPinSide
        let growsAtUpper = options.pin == .beginning ? growNonPinSide : growPinSide
        for row in rows {
            if row.kind == .delete || row.kind == .move, sameGroup(row.originalGroup, group) {
                if row.opOriginalIndex < lower { lower -= 1 }
                if row.opOriginalIndex < upper { upper -= 1 }
            }
            if row.kind == .insert || row.kind == .move, sameGroup(row.finalGroup, group) {
                if growsAtLower || wasEmpty {
                    if row.opFinalIndex < lower { lower += 1 }
                } else if row.opFinalIndex <= lower {
                    lower += 1
                }
                if growsAtUpper || wasEmpty {
                    if row.opFinalIndex <= upper { upper += 1 }
                } else if row.opFinalIndex < upper {
                    upper += 1
                }
            }
            // An empty range has no pin side to speak of: from then on it grows both ways.
            if !wasEmpty { wasEmpty = upper - lower == 0 }
        }
        return RangeSpan(lower: lower, upper: upper)
    }
}

/// The indexes a range covers inside its group, `lower..<upper`.
struct RangeSpan: Hashable, Sendable {
    var lower: Int
    var upper: Int

    /// Creates a span from its bounds.
    init(lower: Int, upper: Int) {
        self.lower = lower
        self.upper = upper
    }

    /// The span `options` covers in a group of `groupCount` rows (empty when the offset from
    /// the end lies past the group).
    init(options: ViewRangeOptions, groupCount: Int) {
        switch options.pin {
        case .beginning:
            self.init(lower: options.offset, upper: options.offset + options.length)
        case .end:
            if options.offset < groupCount {
                let upper = groupCount - options.offset
                self.init(lower: upper - options.length, upper: upper)
            } else {
                self.init(lower: 0, upper: 0)
            }
        }
    }
}
