extension ViewChanges {
    /// Turns the indexes each row change had when it was recorded into its index in the old
    /// snapshot (for deletes and updates) and in the new one (for inserts and updates).
    ///
    /// A change's recorded index is shifted by the changes around it: a later delete recorded
    /// at or before a row's recorded index means the row sat one further down originally, a
    /// later insert before it means it sits one further down finally, and so on. Walking
    /// backwards fixes the original indexes (each earlier change undoes its shift on the ones
    /// after it); walking forwards fixes the final ones.
    static func resolveIndexes(_ rows: inout [WorkingRowChange]) {
        for i in rows.indices.reversed() {
            let change = rows[i]
            for j in rows.indices[(i + 1)...] where rows[j].kind == .delete || rows[j].kind == .update {
                switch change.kind {
                case .delete:
                    if rows[j].originalIndex >= change.opOriginalIndex,
                        sameGroup(rows[j].originalGroup, change.originalGroup)
                    {
                        rows[j].originalIndex += 1
                    }
                case .insert:
                    if rows[j].originalIndex > change.opFinalIndex, sameGroup(rows[j].originalGroup, change.finalGroup)
                    {
                        rows[j].originalIndex -= 1
                    }
                case .move, .update:
                    break
                }
            }
        }
        for i in rows.indices.dropFirst() {
            let change = rows[i]
            for j in rows.indices[..<i].reversed() where rows[j].kind == .insert || rows[j].kind == .update {
                switch change.kind {
                case .delete:
                    if rows[j].finalIndex > change.opOriginalIndex, sameGroup(rows[j].finalGroup, change.originalGroup)
                    {
                        rows[j].finalIndex -= 1
                    }
                case .insert:
                    if rows[j].finalIndex >= change.opFinalIndex, sameGroup(rows[j].finalGroup, change.finalGroup) {
                        rows[j].finalIndex += 1
                    }
                case .move, .update:
                    break
                }
            }
        }
    }
}
