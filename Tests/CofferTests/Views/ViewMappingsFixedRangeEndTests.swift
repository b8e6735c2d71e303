import Testing

@testable import Coffer

/// The rest of YapDatabase's TestViewMappingsLogic fixed-range-from-end scenarios: a range of
/// the last rows that grows while the group has too few rows, and groups that are reset or
/// emptied under it.
@Suite("ViewMappings fixed ranges from the end")
struct ViewMappingsFixedRangeEndTests {
    typealias L = ViewLogic

    /// The last 20 rows.
    static let last20 = L.single(.fixed(length: 20, offset: 0, from: .end))

    @Test(
        "end 5A-B: inserts into a range the group does not fill yet grow it",
        arguments: [(0, 2), (10, 12)])
    func endGrowing(before: Int, after: Int) {
        var shown = Self.last20
        shown.update(groupCounts: ["": before])
        #expect(shown.numberOfItems(inGroup: "") == before)
        let out = L.run(L.inserts(at: [0, 1]), Self.last20, before, after)
        #expect(out.mappings.numberOfItems(inGroup: "") == after)
        #expect(out.rows == [.insert(0, 0), .insert(0, 1)])
    }

    @Test("end 5C: growing past 20 leaves the first insert before the range")
    func end5C() {
        let out = L.run(L.inserts(at: [0, 1]), Self.last20, 19, 21)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, 0)])
    }

    @Test("end 6A: resetting the group deletes every shown row")
    func end6A() {
        let out = L.run([.clearGroup("")], Self.last20, 2, 0)
        #expect(out.mappings.numberOfItems(inGroup: "") == 0)
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test("end 6B: resetting a dynamic group deletes its section and the shown rows only")
    func end6B() {
        var mappings = ViewMappings(groups: [""], view: "view")
        mappings.isDynamicSectionForAllGroups = true
        mappings.setRangeOptions(.fixed(length: 2, offset: 0, from: .end), forGroup: "")
        let out = L.run([.clearGroup("")], mappings, 4, 0)
        #expect(out.mappings.numberOfItems(inGroup: "") == 0)
        #expect(out.sections == [.delete(0)])
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test(
        "end 6C-D: resetting the group and inserting again",
        arguments: [
            [.clearGroup(""), L.insert("key", at: 0)],
            [L.insert("key", at: 0), .clearGroup(""), L.insert("key", at: 0)],
        ] as [[ViewChangeRecord]])
    func endResetInsert(records: [ViewChangeRecord]) {
        let out = L.run(records, Self.last20, 2, 1)
        #expect(out.mappings.numberOfItems(inGroup: "") == 1)
        #expect(out.rows == [.delete(0, 1), .delete(0, 0), .insert(0, 0)])
    }

    /// The three ways of emptying the group, with the rows before, the rows
    /// shown and the index shown at row 0.
    ///
    /// A reset of 4 rows showing the last 2; each row deleted, then the group; and every row of
    /// 54 deleted while the last 50 are shown with a drawing dependency.
    static var emptyings: [([ViewChangeRecord], ViewMappings, Int, Int, Int)] {
        let two = L.single(.fixed(length: 2, offset: 0, from: .end))
        var fifty = L.single(.fixed(length: 50, offset: 0, from: .end))
        fifty.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "")
        let deletes: [ViewChangeRecord] = [
            L.delete("key1", at: 1), L.delete("key0", at: 0), L.delete("key2", at: 0), L.delete("key3", at: 0),
            .deleteGroup(""),
        ]
        return [
            ([.clearGroup("")], two, 4, 2, 2),
            (deletes, two, 4, 2, 2),
            (ViewMappingsFixedRangeTests.deleteAll54, fifty, 54, 50, 4),
        ]
    }

    @Test("end 7A-C: emptying the group empties the range and its position")
    func endCleared() {
        for (records, mappings, before, shownBefore, firstIndex) in Self.emptyings {
            var shown = mappings
            shown.update(groupCounts: ["": before])
            #expect(shown.numberOfItems(inGroup: "") == shownBefore)
            #expect(shown.index(forRow: 0, inGroup: "") == firstIndex)
            let out = L.run(records, mappings, before, 0)
            #expect(out.mappings.numberOfItems(inGroup: "") == 0)
            #expect(
                out.mappings.rangePosition(forGroup: "")
                    == ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: 0))
        }
    }

    @Test("end 8A-C: emptying the group then refreshing the mappings directly")
    func endClearedRefresh() {
        for (_, mappings, before, shownBefore, firstIndex) in Self.emptyings {
            var mappings = mappings
            mappings.update(groupCounts: ["": before])
            #expect(mappings.numberOfItems(inGroup: "") == shownBefore)
            #expect(mappings.index(forRow: 0, inGroup: "") == firstIndex)
            mappings.update(groupCounts: ["": 0])
            #expect(mappings.numberOfItems(inGroup: "") == 0)
            #expect(
                mappings.rangePosition(forGroup: "")
                    == ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: 0))
        }
    }
}
