extension ViewChanges {
    /// Applies each group's shown range to the row changes.
    ///
    /// Drops changes outside it, maps indexes to rows of the range, turns a move across the
    /// range's edge into an insert or a delete, and adds the deletes and inserts of rows pushed
    /// out of or pulled into the range by the batch. Also settles a flexible range that grew past its maximum or shrank below
    /// its minimum, storing the result in the final mappings.
    static func applyRanges(_ rows: inout [WorkingRowChange], original: ViewMappings, final: inout ViewMappings) {
        guard !original.rangeOptions.isEmpty || !final.rangeOptions.isEmpty else { return }
        var changed = false
        for group in groupsWithRanges(original: original, final: final) {
            guard let finalOptions = final.rangeOptions[group],
                let originalOptions = original.rangeOptions[group] ?? final.rangeOptions[group]
            else { continue }
            let originalSpan = RangeSpan(options: originalOptions, groupCount: original.fullCount(forGroup: group))
            let finalCount = final.fullCount(forGroup: group)
            let settled = settleFlexibleRange(
                RangeSpan(options: finalOptions, groupCount: finalCount), options: finalOptions, groupCount: finalCount)
            let tally = filterToRanges(&rows, group: group, original: originalSpan, final: settled.span)

            let length = settled.span.upper - settled.span.lower
            let missing = missingRows(
                originalLength: originalOptions.length, finalLength: length, tally: tally,
                options: finalOptions, settled: settled)
            if missing.deletes > 0 {
                addPushedOutDeletes(
                    &rows, count: missing.deletes, group: group, pin: finalOptions.pin,
                    originalLength: originalOptions.length)
            }
            var inserts = missing.inserts
            if inserts > 0, settled.pinSideInserts > 0 {
                inserts -= addPulledInInserts(
                    &rows, count: inserts, limit: settled.pinSideInserts, group: group,
                    from: finalOptions.pin == .beginning ? 0 : length - 1,
                    step: finalOptions.pin == .beginning ? 1 : -1)
            }
            if inserts > 0 {
                _ = addPulledInInserts(
                    &rows, count: inserts, limit: .max, group: group,
                    from: finalOptions.pin == .beginning ? length - 1 : 0,
                    step: finalOptions.pin == .beginning ? -1 : 1)
            }

            let offset = finalOptions.pin == .beginning ? settled.span.lower : finalCount - settled.span.upper
            if length != finalOptions.length || offset != finalOptions.offset {
                final.updateRange(forGroup: group, length: length, offset: offset)
                changed = true
            }
        }
        if changed { final.updateVisibility() }
    }

    /// A flexible range cut back to its maximum (on the side away from the pin) or widened to
    /// its minimum (pin side first) when the group has the rows; fixed ranges pass through.
    private static func settleFlexibleRange(
        _ span: RangeSpan, options: ViewRangeOptions, groupCount: Int
    ) -> (span: RangeSpan, nonPinSideDeletes: Int, pinSideInserts: Int, nonPinSideInserts: Int) {
        guard options.isFlexibleRange else { return (span, 0, 0, 0) }
        var span = span
        let length = span.upper - span.lower
        if length > options.maxLength {
            let excess = length - options.maxLength
            if options.pin == .beginning { span.upper -= excess } else { span.lower += excess }
            return (span, excess, 0, 0)
        }
        guard length < options.minLength, length < groupCount else { return (span, 0, 0, 0) }
        var needed = options.minLength - length
        var pinSide = 0
        var nonPinSide = 0
        if options.pin == .beginning {
            if span.lower > 0 {
                pinSide = min(needed, span.lower)
                span.lower -= pinSide
                needed -= pinSide
            }
            if span.upper < groupCount, needed > 0 {
                nonPinSide = min(needed, groupCount - span.upper)
                span.upper += nonPinSide
            }
        } else {
            if span.upper < groupCount {
                pinSide = min(needed, groupCount - span.upper)
                span.upper += pinSide
                needed -= pinSide
            }
            if span.lower > 0, needed > 0 {
                nonPinSide = min(needed, span.lower)
                span.lower -= nonPinSide
            }
        }
        return (span, 0, pinSide, nonPinSide)
    }

    /// Drops `group`'s row changes outside its ranges and maps the rest to range rows,
    /// counting the inserts and deletes that remain.
    private static func filterToRanges(
        _ rows: inout [WorkingRowChange], group: String, original: RangeSpan, final: RangeSpan
    ) -> (inserts: Int, deletes: Int) {
        var inserts = 0
        var deletes = 0
        rows = rows.compactMap { row in
            var row = row
            let fromGroup = sameGroup(row.originalGroup, group)
            let toGroup = sameGroup(row.finalGroup, group)
            let inOriginal = row.originalIndex >= original.lower && row.originalIndex < original.upper
            let inFinal = row.finalIndex >= final.lower && row.finalIndex < final.upper
            switch row.kind {
            case .delete:
                guard fromGroup else { return row }
                guard inOriginal else { return nil }
                deletes += 1
                row.originalIndex -= original.lower
            case .insert:
                guard toGroup else { return row }
                guard inFinal else { return nil }
                inserts += 1
                row.finalIndex -= final.lower
            case .update:
                guard fromGroup else { return row }
                guard inOriginal else { return nil }
                row.originalIndex -= original.lower
                row.finalIndex -= final.lower
            case .move:
                guard fromGroup || toGroup else { return row }
                let dropDelete = fromGroup && !inOriginal
                let dropInsert = toGroup && !inFinal
                if fromGroup, inOriginal { row.originalIndex -= original.lower }
                if toGroup, inFinal { row.finalIndex -= final.lower }
                switch (dropDelete, dropInsert) {
                case (true, true):
                    return nil
                case (true, false):
                    row.kind = .insert
                    inserts += 1
                case (false, true):
                    row.kind = .delete
                    deletes += 1
                case (false, false):
                    inserts += 1
                    deletes += 1
                }
            }
            return row
        }
        return (inserts, deletes)
    }

    /// How many rows the batch pushed out of the range (deletes to add) or pulled into it
    /// (inserts to add) beyond the inserts and deletes the batch itself reports.
    private static func missingRows(
        originalLength: Int, finalLength: Int, tally: (inserts: Int, deletes: Int), options: ViewRangeOptions,
        settled: (span: RangeSpan, nonPinSideDeletes: Int, pinSideInserts: Int, nonPinSideInserts: Int)
    ) -> (deletes: Int, inserts: Int) {
        let reported = tally.inserts - tally.deletes
        let expected = finalLength - originalLength
        if options.isFixedRange {
            let length = originalLength + reported
            return (max(length - finalLength, 0), max(finalLength - length, 0))
        }
        if settled.nonPinSideDeletes != 0 {
            return (max(reported - expected, 0), 0)
        }
        if settled.pinSideInserts > 0 || settled.nonPinSideInserts > 0 {
            return (0, max(expected - reported, 0))
        }
        return (0, 0)
    }

    /// Adds deletes for rows pushed out at the end away from the pin, skipping rows the batch
    /// already removes and turning an update of such a row into its delete.
    private static func addPushedOutDeletes(
        _ rows: inout [WorkingRowChange], count: Int, group: String, pin: ViewRangeOptions.Pin, originalLength: Int
    ) {
        var added = 0
        var index = pin == .beginning ? originalLength - 1 : 0
        let step = pin == .beginning ? -1 : 1
        // A row index never repeats, so scanning past the range's rows ends the loop even if
        // the counts were inconsistent.
        var remainingSteps = originalLength + count
        while added < count, remainingSteps > 0 {
            remainingSteps -= 1
            if let existing = rows.firstIndex(where: {
                ($0.kind == .delete || $0.kind == .move || $0.kind == .update) && $0.originalIndex == index
                    && sameGroup($0.originalGroup, group)
            }) {
                if rows[existing].kind == .update {
                    rows[existing].kind = .delete
                    added += 1
                }
            } else {
                rows.append(.delete(nil, group: group, index: index))
                added += 1
            }
            index += step
        }
    }

    /// Adds up to `limit` inserts (at most `count`) for rows pulled into the range, starting at
    /// row `from` and stepping by `step`, skipping rows the batch already inserts and turning
    /// an update of such a row into its insert; returns how many it added.
    private static func addPulledInInserts(
        _ rows: inout [WorkingRowChange], count: Int, limit: Int, group: String, from start: Int, step: Int
    ) -> Int {
        var added = 0
        var tried = 0
        var index = start
        var remainingSteps = count + rows.count + 1
        while added < count, tried < limit, remainingSteps > 0 {
            remainingSteps -= 1
            if let existing = rows.firstIndex(where: {
                ($0.kind == .insert || $0.kind == .move || $0.kind == .update) && $0.finalIndex == index
                    && sameGroup($0.finalGroup, group)
            }) {
                if rows[existing].kind == .update {
                    rows[existing].kind = .insert
                    added += 1
                }
            } else {
                rows.append(.insert(nil, group: group, index: index))
                added += 1
            }
            index += step
            tried += 1
        }
        return added
    }
}
