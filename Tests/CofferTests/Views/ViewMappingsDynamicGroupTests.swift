import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic dynamic-group scenarios: mappings whose sections are
/// every group of the view in name order, so groups come and go between snapshots, and settings
/// made before a group exists apply once it does.
@Suite("ViewMappings dynamic groups")
struct ViewMappingsDynamicGroupTests {
    typealias L = ViewLogic

    /// Mappings showing every group of the view, ordered by name.
    static var allGroups: ViewMappings {
        ViewMappings(view: "view", groupFilter: { _ in true }, groupSort: { $0 < $1 })
    }

    @Test("a new group inserts its section")
    func addedGroup() {
        let out = L.run(
            [.insertGroup("group3")], mappings: Self.allGroups, before: ["group1": 5, "group2": 3],
            after: ["group1": 5, "group2": 3, "group3": 2])
        #expect(out.sections == [.insert(2)])
    }

    @Test("a new empty group hidden while empty inserts no section")
    func addedEmptyGroup() {
        var mappings = Self.allGroups
        mappings.isDynamicSectionForAllGroups = true
        let out = L.run(
            [.insertGroup("group3")], mappings: mappings, before: ["group1": 5, "group2": 3],
            after: ["group1": 5, "group2": 3, "group3": 0])
        #expect(out.sections.isEmpty)
    }

    @Test("a range set on one group stays when another group appears")
    func rangeSurvivesNewGroup() {
        var mappings = Self.allGroups
        mappings.isDynamicSectionForAllGroups = true
        mappings.update(groupCounts: ["group1": 30, "group2": 3], allGroups: nil, recomputingRanges: false)
        mappings.setRangeOptions(.fixed(length: 20, offset: 0, from: .beginning), forGroup: "group1")
        mappings.update(
            groupCounts: ["group1": 30, "group2": 3, "group3": 1], allGroups: nil, recomputingRanges: false)
        #expect(mappings.rangeOptions(forGroup: "group1") != nil)
        #expect(mappings.numberOfItems(inGroup: "group1") == 20)
        #expect(mappings.numberOfItems(inGroup: "group3") == 1)
    }

    @Test("a range, reversal and drawing dependencies can be set before the group exists")
    func settingsBeforeFirstUpdate() {
        var ranged = Self.allGroups
        ranged.setRangeOptions(.fixed(length: 10, offset: 0, from: .beginning), forGroup: "group2")
        ranged.update(groupCounts: ["group1": 30, "group2": 15], allGroups: nil, recomputingRanges: false)
        #expect(ranged.rangeOptions(forGroup: "group2") != nil)
        #expect(ranged.numberOfItems(inGroup: "group2") == 10)

        var reversed = Self.allGroups
        reversed.setIsReversed(true, forGroup: "group1")
        reversed.update(groupCounts: ["group1": 30, "group2": 15], allGroups: nil, recomputingRanges: false)
        #expect(reversed.isReversed(forGroup: "group1"))
        #expect(reversed.index(forRow: 29, inGroup: "group1") == 0)

        var dependent = Self.allGroups
        dependent.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "group1")
        let counts = ["group1": 30, "group2": 15]
        let out = L.run(
            [.updateRow(CollectionKey(collection: "", key: ""), group: "group1", index: 3, parts: .object)],
            mappings: dependent, before: counts, after: counts)
        #expect(dependent.cellDrawingDependencyOffsets(forGroup: "group1") == [-1])
        let rows = out.changes.rowChanges
        #expect(rows.map(\.changedParts) == [.object, .dependency])
        #expect(rows.map(\.originalIndex) == [3, 4])
    }

    @Test(
        "a row inserted into or updated in a group that disappears is left out; a delete is kept",
        arguments: [
            (ViewChangeRecord.insertRow(CollectionKey(collection: "", key: "key"), group: "group3", index: 2), 0),
            (.updateRow(CollectionKey(collection: "", key: "key"), group: "group3", index: 0, parts: .object), 0),
            (.deleteRow(CollectionKey(collection: "", key: "key"), group: "group3", index: 0), 1),
        ])
    func rowsOfRemovedGroup(record: ViewChangeRecord, count: Int) {
        let out = L.run(
            [record], mappings: Self.allGroups, before: ["group1": 5, "group2": 3, "group3": 2],
            after: ["group1": 5, "group2": 3])
        #expect(out.changes.rowChanges.count == count)
    }

    @Test("folding turns off when a group with the folded section's name appears")
    func foldedNameBecomesGroup() {
        var mappings = Self.allGroups
        mappings.setAutoConsolidateGroups(threshold: 100, name: "super-omega-group")
        #expect(mappings.consolidatedGroupName == "super-omega-group")
        #expect(mappings.autoConsolidateGroupsThreshold == 100)
        mappings.update(
            groupCounts: ["group1": 30, "group2": 15, "super-omega-group": 10], allGroups: nil,
            recomputingRanges: false)
        #expect(mappings.consolidatedGroupName == nil)
        #expect(mappings.autoConsolidateGroupsThreshold == 0)
    }
}
