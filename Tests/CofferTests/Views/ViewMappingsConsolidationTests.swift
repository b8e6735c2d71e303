import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic auto-consolidation scenarios: two groups folded into one
/// section named "auto" while they hold fewer than 5 rows.
@Suite("ViewMappings consolidation")
struct ViewMappingsConsolidationTests {
    typealias L = ViewLogic

    /// Groups g0 and g1, folded below 5 rows.
    static var folding: ViewMappings {
        var mappings = ViewMappings(groups: ["g0", "g1"], view: "view")
        mappings.setAutoConsolidateGroups(threshold: 5, name: "auto")
        return mappings
    }

    /// A move from `[fromSection, fromRow]` of `fromGroup` to `[toSection, toRow]` of `toGroup`.
    static func move(_ from: (String, Int, Int), _ to: (String, Int, Int)) -> ViewRowChange {
        ViewRowChange(
            kind: .move, collectionKey: nil, changedParts: [], originalGroup: from.0, originalSection: from.1,
            originalIndex: from.2, finalGroup: to.0, finalSection: to.1, finalIndex: to.2)
    }

    @Test("1B: deleting one row of g1 folds both groups into one section")
    func fold1B() {
        let out = L.run(
            [.deleteRow(CollectionKey(collection: "", key: "section1,row1"), group: "g1", index: 1)],
            mappings: Self.folding, before: ["g0": 2, "g1": 3], after: ["g0": 2, "g1": 2])
        #expect(
            out.changes.sectionChanges == [
                ViewSectionChange(kind: .delete, group: "g0", section: 0),
                ViewSectionChange(kind: .delete, group: "g1", section: 1),
                ViewSectionChange(kind: .insert, group: "auto", section: 0),
            ])
        let rows = out.changes.rowChanges
        #expect(rows.count == 5)
        #expect(L.Row(rows[0]) == .delete(1, 1) && rows[0].originalGroup == "g1")
        #expect(
            Array(rows.dropFirst()) == [
                Self.move(("g0", 0, 0), ("auto", 0, 0)), Self.move(("g0", 0, 1), ("auto", 0, 1)),
                Self.move(("g1", 1, 0), ("auto", 0, 2)), Self.move(("g1", 1, 2), ("auto", 0, 3)),
            ])
        #expect(out.mappings.numberOfSections == 1)
        #expect(out.mappings.visibleGroups == ["auto"])
    }

    @Test("1C: deleting a row of each group folds them")
    func fold1C() {
        let out = L.run(
            [
                .deleteRow(CollectionKey(collection: "", key: "section0,row0"), group: "g0", index: 0),
                .deleteRow(CollectionKey(collection: "", key: "section1,row1"), group: "g1", index: 1),
            ],
            mappings: Self.folding, before: ["g0": 2, "g1": 3], after: ["g0": 1, "g1": 2])
        #expect(out.sections == [.delete(0), .delete(1), .insert(0)])
        let rows = out.changes.rowChanges
        #expect(rows.count == 5)
        #expect(rows.prefix(2).map(L.Row.init) == [.delete(0, 0), .delete(1, 1)])
        #expect(
            Array(rows.dropFirst(2)) == [
                Self.move(("g0", 0, 1), ("auto", 0, 0)), Self.move(("g1", 1, 0), ("auto", 0, 1)),
                Self.move(("g1", 1, 2), ("auto", 0, 2)),
            ])
    }

    @Test("2A: inserting a row unfolds the groups again")
    func unfold2A() {
        let out = L.run(
            [.insertRow(CollectionKey(collection: "", key: "section0,row0"), group: "g0", index: 0)],
            mappings: Self.folding, before: ["g0": 1, "g1": 3], after: ["g0": 2, "g1": 3])
        #expect(
            out.changes.sectionChanges == [
                ViewSectionChange(kind: .delete, group: "auto", section: 0),
                ViewSectionChange(kind: .insert, group: "g0", section: 0),
                ViewSectionChange(kind: .insert, group: "g1", section: 1),
            ])
        let rows = out.changes.rowChanges
        #expect(rows.count == 5)
        #expect(L.Row(rows[0]) == .insert(0, 0) && rows[0].finalGroup == "g0")
        #expect(
            Array(rows.dropFirst()) == [
                Self.move(("auto", 0, 0), ("g0", 0, 1)), Self.move(("auto", 0, 1), ("g1", 1, 0)),
                Self.move(("auto", 0, 2), ("g1", 1, 1)), Self.move(("auto", 0, 3), ("g1", 1, 2)),
            ])
        #expect(out.mappings.numberOfSections == 2)
    }

    @Test("getters of folded mappings translate between the folded section and the groups")
    func foldedGetters() {
        var mappings = ViewMappings(groups: ["A", "B", "C"])
        mappings.setAutoConsolidateGroups(threshold: 10, name: "all")
        mappings.update(groupCounts: ["A": 1, "B": 2, "C": 1])
        #expect(mappings.isUsingConsolidatedGroup)
        #expect(mappings.numberOfSections == 1)
        #expect(mappings.numberOfItems(inSection: 0) == 4)
        #expect(mappings.group(forSection: 0) == "all")
        #expect(mappings.groupAndIndex(forConsolidatedRow: 2).map { "\($0.group)\($0.index)" } == "B1")
        #expect(mappings.groupAndIndex(forConsolidatedRow: 3).map { "\($0.group)\($0.index)" } == "C0")
        #expect(mappings.indexPath(forIndex: 0, inGroup: "C") == ViewIndexPath(section: 0, row: 3))
        #expect(mappings.nearestIndexPath(forRow: 5, inGroup: "B") == ViewIndexPath(section: 0, row: 2))
    }
}
