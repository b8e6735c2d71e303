extension ViewChanges {
    /// Merges the changes made to the same group into at most one: a group deleted and
    /// re-added (or added and deleted) in the batch did not change as a section, and a group
    /// that went through several of each keeps its first change when it ends the way it began.
    static func consolidateSections(_ sections: inout [WorkingSectionChange]) {
        var removed = Set<Int>()
        for first in sections.indices where !removed.contains(first) {
            let matches = sections.indices[(first + 1)...].filter {
                !removed.contains($0) && sections[$0].group == sections[first].group
            }
            guard let last = matches.last else { continue }
            removed.formUnion(matches)
            if sections[first].kind != sections[last].kind {
                removed.insert(first)
            }
        }
        sections = sections.indices.filter { !removed.contains($0) }.map { sections[$0] }
    }

    /// Keeps the section changes the UI sees: a group becomes or stops being a section only
    /// when it was hidden before or after (a static or still-visible group does not), then
    /// replaces them all when the groups start or stop being folded into one section.
    static func postProcessSections(
        _ sections: inout [WorkingSectionChange], original: ViewMappings, final: ViewMappings
    ) {
        sections = sections.compactMap { change in
            var change = change
            let before = original.section(forGroup: change.group)
            let after = final.section(forGroup: change.group)
            switch change.kind {
            case .delete:
                guard let before, after == nil else { return nil }
                change.originalSection = before
            case .insert:
                guard before == nil, let after else { return nil }
                change.finalSection = after
            }
            return change
        }

        let name = original.consolidatedGroupName ?? final.consolidatedGroupName ?? ""
        switch (original.isUsingConsolidatedGroup, final.isUsingConsolidatedGroup) {
        case (true, true):
            sections.removeAll()
        case (false, true):
            sections = original.visibleGroupList.enumerated().map { section, group in
                WorkingSectionChange(kind: .delete, group: group, originalSection: section)
            }
            sections.append(WorkingSectionChange(kind: .insert, group: name, finalSection: 0))
        case (true, false):
            sections = [WorkingSectionChange(kind: .delete, group: name, originalSection: 0)]
            sections += final.visibleGroupList.enumerated().map { section, group in
                WorkingSectionChange(kind: .insert, group: group, finalSection: section)
            }
        case (false, false):
            break
        }
    }
}
