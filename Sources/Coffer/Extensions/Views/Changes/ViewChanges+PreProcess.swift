extension ViewChanges {
    /// Splits raw records into section and row changes, drops the ones about groups the
    /// mappings do not show, expands cleared groups into row deletes, and adds the neighbour
    /// updates the mappings' drawing dependencies call for.
    static func preProcess(
        _ records: [ViewChangeRecord], original: ViewMappings, final: ViewMappings
    ) -> (sections: [WorkingSectionChange], rows: [WorkingRowChange]) {
        var sections: [WorkingSectionChange] = []
        var rows: [WorkingRowChange] = []
        let originalGroups = Set(original.allGroups)
        let finalGroups = Set(final.allGroups)
        var counts = original.counts

        for record in records {
            var touched: (group: String, index: Int, count: Int, wasDelete: Bool)?
            switch record {
            case .reset:
                continue
            case .insertGroup(let group):
                if finalGroups.contains(group) { sections.append(WorkingSectionChange(kind: .insert, group: group)) }
            case .deleteGroup(let group):
                if originalGroups.contains(group) { sections.append(WorkingSectionChange(kind: .delete, group: group)) }
            case .clearGroup(let group):
                guard originalGroups.contains(group) else { continue }
                sections.append(WorkingSectionChange(kind: .delete, group: group, isClear: true))
                // A clear comes without row deletes: forget what happened to the group's rows
                // so far and delete every row the reader saw instead.
                rows.removeAll { row in
                    row.kind == .delete ? sameGroup(row.originalGroup, group) : sameGroup(row.finalGroup, group)
                }
                for index in stride(from: original.fullCount(forGroup: group) - 1, through: 0, by: -1) {
                    rows.append(.delete(nil, group: group, index: index))
                }
                counts[group] = 0
            case .deleteRow(let key, let group, let index):
                guard originalGroups.contains(group), isValidIndex(index) else { continue }
                rows.append(.delete(key, group: group, index: index))
                let count = max((counts[group] ?? 0) - 1, 0)
                counts[group] = count
                touched = (group, index, count, true)
            case .insertRow(let key, let group, let index):
                guard finalGroups.contains(group), isValidIndex(index) else { continue }
                rows.append(.insert(key, group: group, index: index))
                let count = (counts[group] ?? 0) + 1
                counts[group] = count
                touched = (group, index, count, false)
            case .updateRow(let key, let group, let index, let parts):
                guard finalGroups.contains(group), isValidIndex(index) else { continue }
                rows.append(.update(key, group: group, index: index, parts: parts))
                touched = (group, index, counts[group] ?? 0, false)
            }
            if let touched {
                appendDependencyUpdates(to: &rows, for: touched, offsets: original.dependencies[touched.group] ?? [])
            }
        }
        return (sections, rows)
    }

    /// Whether a recorded index can be processed; the view never records others.
    static func isValidIndex(_ index: Int) -> Bool {
        index >= 0 && index <= ViewLimits.maximum
    }

    /// Adds an update for each row whose drawing depends on the row a change touched.
    ///
    /// A dependency offset says which neighbour a row looks at; the rows to redraw are the ones
    /// looking at the changed row, at the opposite offset. After a delete, the row below has
    /// already moved up into the deleted row's index.
    private static func appendDependencyUpdates(
        to rows: inout [WorkingRowChange],
        for touched: (group: String, index: Int, count: Int, wasDelete: Bool),
        offsets: Set<Int>
    ) {
        for offset in offsets.sorted() {
            let toward = -offset
            var dependent: Int?
            if toward > 0 {
                dependent = touched.index + toward - (touched.wasDelete ? 1 : 0)
            } else if toward < 0, -toward <= touched.index {
                dependent = touched.index + toward
            }
            if let dependent, dependent < touched.count {
                rows.append(.update(nil, group: touched.group, index: dependent, parts: .dependency))
            }
        }
    }
}
