import Testing

@testable import Coffer

/// The rest of YapDatabase's TestViewMappingsLogic auto-consolidation scenarios: groups g0 and
/// g1 folding into the section "auto" (1A), unfolding (2B-C), staying folded under a higher
/// threshold (3A-F), and a folded section's name that collides with a group.
@Suite("ViewMappings auto-consolidation")
struct ViewMappingsAutoConsolidationTests {
    typealias L = ViewLogic

    /// Groups g0 and g1, folded into "auto" below `threshold` rows.
    static func folding(below threshold: Int) -> ViewMappings {
        var mappings = ViewMappings(groups: ["g0", "g1"], view: "view")
        mappings.setAutoConsolidateGroups(threshold: threshold, name: "auto")
        return mappings
    }

    /// A row change by kind, groups and paths, compared whole (the row's key is left out).
    struct Shape: Hashable, CustomStringConvertible {
        var kind: ViewRowChange.Kind
        var from: String?
        var fromPath: ViewIndexPath?
        var to: String?
        var toPath: ViewIndexPath?

        init(_ change: ViewRowChange) {
            kind = change.kind
            from = change.kind == .insert ? nil : change.originalGroup
            fromPath = change.kind == .insert ? nil : change.originalIndexPath
            to = change.kind == .delete ? nil : change.finalGroup
            toPath = change.kind == .delete ? nil : change.finalIndexPath
        }

        init(
            _ kind: ViewRowChange.Kind, from: (String, Int, Int)? = nil, to: (String, Int, Int)? = nil
        ) {
            self.kind = kind
            self.from = from?.0
            fromPath = from.map { ViewIndexPath(section: $0.1, row: $0.2) }
            self.to = to?.0
            toPath = to.map { ViewIndexPath(section: $0.1, row: $0.2) }
        }

        var description: String {
            "\(kind) \(from ?? "~") \(fromPath?.description ?? "~") -> \(to ?? "~") \(toPath?.description ?? "~")"
        }
    }

    /// `key` (named after its section and row) inserted at `index` of `group`.
    static func insert(_ key: String, _ group: String, at index: Int) -> ViewChangeRecord {
        .insertRow(CollectionKey(collection: "", key: key), group: group, index: index)
    }

    /// `key` (named after its section and row) deleted from `index` of `group`.
    static func delete(_ key: String, _ group: String, at index: Int) -> ViewChangeRecord {
        .deleteRow(CollectionKey(collection: "", key: key), group: group, index: index)
    }

    /// Runs `records` on g0 and g1 folded below `threshold`, from `before` to `after` rows.
    static func run(
        _ records: [ViewChangeRecord], threshold: Int = 5, before: (Int, Int), after: (Int, Int)
    ) -> (sections: [ViewSectionChange], rows: [Shape]) {
        let out = L.run(
            records, mappings: folding(below: threshold), before: ["g0": before.0, "g1": before.1],
            after: ["g0": after.0, "g1": after.1])
        return (out.changes.sectionChanges, out.changes.rowChanges.map(Shape.init))
    }

    /// The folding of g0 (section 0) and g1 (section 1) into "auto".
    static let fold = [
        ViewSectionChange(kind: .delete, group: "g0", section: 0),
        ViewSectionChange(kind: .delete, group: "g1", section: 1),
        ViewSectionChange(kind: .insert, group: "auto", section: 0),
    ]

    /// The unfolding of "auto" into g0 (section 0) and g1 (section 1).
    static let unfold = [
        ViewSectionChange(kind: .delete, group: "auto", section: 0),
        ViewSectionChange(kind: .insert, group: "g0", section: 0),
        ViewSectionChange(kind: .insert, group: "g1", section: 1),
    ]

    @Test("1A: deleting the first row of g0 folds both groups into one section")
    func fold1A() {
        let out = Self.run([Self.delete("section0,row0", "g0", at: 0)], before: (2, 3), after: (1, 3))
        #expect(out.sections == Self.fold)
        #expect(
            out.rows == [
                Shape(.delete, from: ("g0", 0, 0)),
                Shape(.move, from: ("g0", 0, 1), to: ("auto", 0, 0)),
                Shape(.move, from: ("g1", 1, 0), to: ("auto", 0, 1)),
                Shape(.move, from: ("g1", 1, 1), to: ("auto", 0, 2)),
                Shape(.move, from: ("g1", 1, 2), to: ("auto", 0, 3)),
            ])
    }

    @Test("2B: inserting a row into g1 unfolds the groups")
    func unfold2B() {
        let out = Self.run([Self.insert("section1,row1", "g1", at: 1)], before: (2, 2), after: (2, 3))
        #expect(out.sections == Self.unfold)
        #expect(
            out.rows == [
                Shape(.insert, to: ("g1", 1, 1)),
                Shape(.move, from: ("auto", 0, 0), to: ("g0", 0, 0)),
                Shape(.move, from: ("auto", 0, 1), to: ("g0", 0, 1)),
                Shape(.move, from: ("auto", 0, 2), to: ("g1", 1, 0)),
                Shape(.move, from: ("auto", 0, 3), to: ("g1", 1, 2)),
            ])
    }

    @Test("2C: inserting a row into each group unfolds them")
    func unfold2C() {
        let records = [Self.insert("section0,row0", "g0", at: 0), Self.insert("section1,row1", "g1", at: 1)]
        let out = Self.run(records, before: (1, 2), after: (2, 3))
        #expect(out.sections == Self.unfold)
        #expect(
            out.rows == [
                Shape(.insert, to: ("g0", 0, 0)),
                Shape(.insert, to: ("g1", 1, 1)),
                Shape(.move, from: ("auto", 0, 0), to: ("g0", 0, 1)),
                Shape(.move, from: ("auto", 0, 1), to: ("g1", 1, 0)),
                Shape(.move, from: ("auto", 0, 2), to: ("g1", 1, 2)),
            ])
    }

    @Test("3A-C: deletes while the groups stay folded are reported in the folded section")
    func foldedDeletes() {
        let first = Self.delete("section0,row0", "g0", at: 0)
        let second = Self.delete("section1,row1", "g1", at: 1)
        let cases: [([ViewChangeRecord], (Int, Int), [Shape])] = [
            ([first], (1, 3), [Shape(.delete, from: ("auto", 0, 0))]),
            ([second], (2, 2), [Shape(.delete, from: ("auto", 0, 3))]),
            ([first, second], (1, 2), [Shape(.delete, from: ("auto", 0, 0)), Shape(.delete, from: ("auto", 0, 3))]),
        ]
        for (records, after, rows) in cases {
            let out = Self.run(records, threshold: 20, before: (2, 3), after: after)
            #expect(out.sections.isEmpty)
            #expect(out.rows == rows)
        }
    }

    @Test("3D-F: inserts while the groups stay folded are reported in the folded section")
    func foldedInserts() {
        let first = Self.insert("section0,row0", "g0", at: 0)
        let second = Self.insert("section1,row1", "g1", at: 1)
        let cases: [([ViewChangeRecord], (Int, Int), [Shape])] = [
            ([first], (1, 3), [Shape(.insert, to: ("auto", 0, 0))]),
            ([second], (2, 2), [Shape(.insert, to: ("auto", 0, 3))]),
            ([first, second], (1, 2), [Shape(.insert, to: ("auto", 0, 0)), Shape(.insert, to: ("auto", 0, 3))]),
        ]
        for (records, before, rows) in cases {
            let out = Self.run(records, threshold: 20, before: before, after: (2, 3))
            #expect(out.sections.isEmpty)
            #expect(out.rows == rows)
        }
    }

    @Test("naming the folded section after a group turns folding off")
    func nameCollidesWithGroup() {
        var mappings = ViewMappings(groups: ["group1", "group2"], view: "view")
        mappings.setAutoConsolidateGroups(threshold: 100, name: "group1")
        #expect(mappings.consolidatedGroupName == nil)
        #expect(mappings.autoConsolidateGroupsThreshold == 0)
    }
}
