extension ViewChanges {
    /// Gives each row change its sections, turns an update that changes section into a move
    /// (a list would otherwise redraw the wrong row), and flips the indexes of reversed groups.
    static func assignSections(_ rows: inout [WorkingRowChange], original: ViewMappings, final: ViewMappings) {
        for i in rows.indices {
            let originalSection = rows[i].originalGroup.flatMap { original.section(forGroup: $0) }
            let finalSection = rows[i].finalGroup.flatMap { final.section(forGroup: $0) }
            switch rows[i].kind {
            case .delete:
                rows[i].originalSection = originalSection
            case .insert:
                rows[i].finalSection = finalSection
            case .update:
                rows[i].originalSection = originalSection
                rows[i].finalSection = finalSection
                if originalSection != finalSection { rows[i].kind = .move }
            case .move:
                rows[i].originalSection = originalSection
                rows[i].finalSection = finalSection
            }
            if let group = rows[i].originalGroup, original.reversedGroups.contains(group) {
                let count = original.visibleCount(forGroup: group)
                if rows[i].originalIndex >= 0, rows[i].originalIndex < count {
                    rows[i].originalIndex = count - 1 - rows[i].originalIndex
                }
            }
            if let group = rows[i].finalGroup, original.reversedGroups.contains(group) {
                // A delete that began as an update still names its group; its final index
                // means nothing and may lie past the end.
                let count = final.visibleCount(forGroup: group)
                if rows[i].finalIndex >= 0, rows[i].finalIndex < count {
                    rows[i].finalIndex = count - 1 - rows[i].finalIndex
                }
            }
        }
    }

    /// Moves the row changes into the one folded section when the groups are (or become, or
    /// stop being) folded: indexes shift by the rows of the groups before, and when folding
    /// starts or stops every row the UI showed moves between sections.
    static func foldRows(_ rows: inout [WorkingRowChange], original: ViewMappings, final: ViewMappings) {
        let name = original.consolidatedGroupName ?? final.consolidatedGroupName ?? ""
        switch (original.isUsingConsolidatedGroup, final.isUsingConsolidatedGroup) {
        case (true, true):
            let originalOffsets = groupOffsets(original)
            let finalOffsets = groupOffsets(final)
            for i in rows.indices {
                if rows[i].kind != .insert { foldOriginal(&rows[i], name: name, offsets: originalOffsets) }
                if rows[i].kind != .delete { foldFinal(&rows[i], name: name, offsets: finalOffsets) }
                if rows[i].kind == .update, rows[i].originalIndex != rows[i].finalIndex { rows[i].kind = .move }
            }
        case (false, true):
            let finalOffsets = groupOffsets(final)
            let recorded = rows.count
            rows += untouchedRowMoves(rows, original: original, final: final) { group, section, index, finalIndex in
                var move = WorkingRowChange.delete(nil, group: group, index: index)
                move.kind = .move
                move.changedParts = []
                move.originalSection = section
                move.finalGroup = name
                move.finalSection = 0
                move.finalIndex = (finalOffsets[group] ?? 0) + finalIndex
                return move
            }
            for i in 0..<recorded where rows[i].kind != .delete {
                if rows[i].kind == .update { rows[i].kind = .move }
                foldFinal(&rows[i], name: name, offsets: finalOffsets)
            }
        case (true, false):
            let originalOffsets = groupOffsets(original)
            let recorded = rows.count
            rows += untouchedRowMoves(rows, original: original, final: final) { group, _, index, finalIndex in
                var move = WorkingRowChange.delete(nil, group: name, index: (originalOffsets[group] ?? 0) + index)
                move.kind = .move
                move.changedParts = []
                move.originalSection = 0
                move.finalGroup = group
                move.finalSection = final.section(forGroup: group)
                move.finalIndex = finalIndex
                return move
            }
            for i in 0..<recorded where rows[i].kind != .insert {
                if rows[i].kind == .update { rows[i].kind = .move }
                foldOriginal(&rows[i], name: name, offsets: originalOffsets)
            }
        case (false, false):
            break
        }
    }

    /// Where each group starts inside the folded section.
    private static func groupOffsets(_ mappings: ViewMappings) -> [String: Int] {
        var offsets: [String: Int] = [:]
        var offset = 0
        for group in mappings.allGroups {
            offsets[group] = offset
            offset += mappings.visibleCount(forGroup: group)
        }
        return offsets
    }

    /// Puts a change's original position into the folded section.
    private static func foldOriginal(_ row: inout WorkingRowChange, name: String, offsets: [String: Int]) {
        row.originalIndex += row.originalGroup.flatMap { offsets[$0] } ?? 0
        row.originalGroup = name
        row.originalSection = 0
    }

    /// Puts a change's final position into the folded section.
    private static func foldFinal(_ row: inout WorkingRowChange, name: String, offsets: [String: Int]) {
        row.finalIndex += row.finalGroup.flatMap { offsets[$0] } ?? 0
        row.finalGroup = name
        row.finalSection = 0
    }

    /// A move for every row the UI showed that the batch left alone, built by `makeMove` from
    /// its group, original section, original index and index in its group afterwards.
    ///
    /// The index afterwards drops by the rows removed above the row in the old list, then
    /// grows by each row arriving at or above it, taken in ascending order. (YapDatabase
    /// walks the changes in recorded order instead, which misplaces a row when a later-recorded
    /// arrival lands above an earlier one.)
    private static func untouchedRowMoves(
        _ rows: [WorkingRowChange], original: ViewMappings, final: ViewMappings,
        makeMove: (String, Int, Int, Int) -> WorkingRowChange
    ) -> [WorkingRowChange] {
        var moves: [WorkingRowChange] = []
        for group in original.visibleGroups {
            guard let originalSection = original.section(forGroup: group) else { continue }
            let finalSection = final.section(forGroup: group)
            let departures = rows.filter { $0.kind != .insert && $0.originalSection == originalSection }
            let removed = departures.filter { $0.kind == .delete || $0.kind == .move }.map(\.originalIndex)
            let touched = Set(departures.map(\.originalIndex))
            let arrivals = rows.filter { ($0.kind == .insert || $0.kind == .move) && $0.finalSection == finalSection }
                .map(\.finalIndex).sorted()
            for originalIndex in 0..<original.visibleCount(forGroup: group) where !touched.contains(originalIndex) {
                var finalIndex = originalIndex - removed.filter { $0 < originalIndex }.count
                for arrival in arrivals where arrival <= finalIndex {
                    finalIndex += 1
                }
                moves.append(makeMove(group, originalSection, originalIndex, finalIndex))
            }
        }
        return moves
    }
}
