extension ViewChanges {
    /// Merges the changes made to the same row into one, from the row's original to its final
    /// position: insert then delete cancels out, delete then insert is a move, a run of
    /// updates stays an update only if the row never left its index.
    ///
    /// Rows are matched by key; a neighbour update added for a drawing dependency has no key,
    /// so it is matched by position instead, following the row's index through the later
    /// changes.
    static func consolidateRows(_ rows: inout [WorkingRowChange]) {
        var removed = Set<Int>()
        for first in rows.indices where !removed.contains(first) {
            var matches: [Int] = []
            var latest = first
            var latestIndex = trackedIndex(of: rows[first])
            for later in rows.indices[(first + 1)...] {
                var isSameRow = false
                if !removed.contains(later) {
                    if let firstKey = rows[first].collectionKey, let laterKey = rows[later].collectionKey {
                        isSameRow = firstKey == laterKey
                    } else if matchesByPosition(rows[latest], trackedIndex: latestIndex, later: rows[later]) {
                        isSameRow = true
                        shareKey(&rows, first: first, latest: latest, later: later)
                    }
                }
                if isSameRow {
                    rows[first].changedParts.formUnion(rows[later].changedParts)
                    matches.append(later)
                    latest = later
                    latestIndex = trackedIndex(of: rows[later])
                } else if rows[latest].kind == .update || rows[latest].kind == .insert {
                    latestIndex = shifted(latestIndex, of: rows[latest], by: rows[later])
                }
            }
            guard let last = matches.last else { continue }
            let lastChange = rows[last]
            removed.formUnion(matches)
            switch (rows[first].kind, lastChange.kind) {
            case (.delete, .delete):
                break
            case (.insert, .delete):
                removed.insert(first)
            case (.insert, _):
                rows[first].finalIndex = lastChange.finalIndex
                rows[first].finalGroup = lastChange.finalGroup
            case (.update, .delete):
                rows[first].kind = .delete
            case (.update, .update) where matches.allSatisfy({ rows[$0].kind == .update }):
                break
            default:
                // Whatever came between, the row left its index: report a move, since a UI
                // would apply an update at an index shifted by the batch's other changes.
                rows[first].kind = .move
                rows[first].finalIndex = lastChange.finalIndex
                rows[first].finalGroup = lastChange.finalGroup
                rows[first].opFinalIndex = lastChange.opFinalIndex
            }
        }
        rows = rows.indices.filter { !removed.contains($0) }.map { rows[$0] }
    }

    /// The index a row sits at right after `change`, as later changes see it (zero after a
    /// delete, which matches nothing by position).
    private static func trackedIndex(of change: WorkingRowChange) -> Int {
        change.kind == .update || change.kind == .insert ? change.opFinalIndex : 0
    }

    /// Whether `later` is a change to the row `latest` last touched, judged by position
    /// because one of them has no key.
    private static func matchesByPosition(_ latest: WorkingRowChange, trackedIndex: Int, later: WorkingRowChange)
        -> Bool
    {
        switch latest.kind {
        case .update:
            return (later.kind == .update || later.kind == .delete) && trackedIndex == later.opOriginalIndex
                && sameGroup(latest.originalGroup, later.originalGroup)
        case .insert:
            return later.kind == .update && trackedIndex == later.opOriginalIndex
                && sameGroup(latest.finalGroup, later.finalGroup)
        case .delete, .move:
            return false
        }
    }

    /// Gives the changes matched by position the key one of them knows.
    private static func shareKey(_ rows: inout [WorkingRowChange], first: Int, latest: Int, later: Int) {
        if let key = rows[latest].collectionKey {
            rows[later].collectionKey = key
        } else {
            rows[latest].collectionKey = rows[later].collectionKey
        }
        if rows[first].collectionKey == nil {
            rows[first].collectionKey = rows[latest].collectionKey
        }
    }

    /// Follows a row's index through a change to another row of the same group.
    private static func shifted(_ index: Int, of latest: WorkingRowChange, by later: WorkingRowChange) -> Int {
        switch later.kind {
        case .insert where later.opFinalIndex <= index && sameGroup(later.finalGroup, latest.finalGroup):
            return index + 1
        case .delete where later.opOriginalIndex < index && sameGroup(later.originalGroup, latest.finalGroup):
            return index - 1
        default:
            return index
        }
    }
}
