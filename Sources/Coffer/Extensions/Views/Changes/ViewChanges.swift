/// Turns a view's raw change records into the changes a list UI applies in one batch.
///
/// A port of YapDatabase's `YapDatabaseViewChange`. A reader keeps `ViewMappings` for the
/// snapshot its UI shows; when it moves to a newer snapshot it collects the records of every
/// commit in between (in commit order) and asks for the changes between the two snapshots,
/// shaped by the mappings: only the groups shown, indexes mapped through ranges, reversal and
/// folding, neighbours redrawn for drawing dependencies. The result is the exact list of
/// section and row changes YapDatabase computes, so a table or collection view (or any list)
/// can animate from one snapshot to the next.
public enum ViewChanges {
    /// Moves `mappings` to a new snapshot and returns the changes from the old one.
    ///
    /// `groupCounts` (and for dynamic groups `allGroups`) describe the new snapshot, as for
    /// `ViewMappings.update(groupCounts:allGroups:)`; `records` are the raw records of the
    /// commits in between, concatenated in order. When one of them is a reset, the mappings
    /// are refreshed from the counts and the result is `.reset`.
    public static func advance(
        _ mappings: inout ViewMappings, groupCounts: [String: Int], allGroups: [String]? = nil,
        records: [ViewChangeRecord]
    ) -> ViewChangeSet {
        let original = mappings
        let isReset = records.contains(where: \.isReset)
        mappings.update(groupCounts: groupCounts, allGroups: allGroups, recomputingRanges: isReset)
        return consolidate(records, originalMappings: original, finalMappings: &mappings)
    }

    /// The changes between the snapshot `originalMappings` describe and the one
    /// `finalMappings` describe, given the raw records of the commits in between.
    ///
    /// `finalMappings` must already hold the new counts (updated from `originalMappings`
    /// without recomputing ranges, which `advance` does); its ranges are moved as the changes
    /// move them. When a record is a reset, the final ranges are recomputed from the counts and
    /// the result is `.reset`. Records about groups the mappings do not show are ignored, as
    /// are records with a negative index.
    public static func consolidate(
        _ records: [ViewChangeRecord], originalMappings: ViewMappings, finalMappings: inout ViewMappings
    ) -> ViewChangeSet {
        if records.contains(where: \.isReset) {
            finalMappings.update(groupCounts: finalMappings.counts, allGroups: finalMappings.allGroups)
            return .reset
        }
        var original = originalMappings
        original.autoConsolidationDisabled = true
        finalMappings.autoConsolidationDisabled = true
        defer { finalMappings.autoConsolidationDisabled = false }

        var (sections, rows) = preProcess(records, original: original, final: finalMappings)
        resolveIndexes(&rows)
        trackRanges(rows, original: original, final: &finalMappings)
        consolidateRows(&rows)
        consolidateSections(&sections)
        applyRanges(&rows, original: original, final: &finalMappings)
        assignSections(&rows, original: original, final: finalMappings)
        foldRows(&rows, original: original, final: finalMappings)
        postProcessSections(&sections, original: original, final: finalMappings)
        return .changes(sections: sections.map(\.result), rows: rows.map(\.result))
    }
}
