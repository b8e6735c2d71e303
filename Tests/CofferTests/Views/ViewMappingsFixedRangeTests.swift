import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic fixed-range scenarios: a window of 20 rows that keeps
/// its place, so inserts and deletes inside it push rows out of or pull rows into it.
@Suite("ViewMappings fixed ranges")
struct ViewMappingsFixedRangeTests {
    typealias L = ViewLogic

    /// The first 20 rows.
    static let first20 = L.single(.fixed(length: 20, offset: 0, from: .beginning))

    @Test(
        "beginning 1: an insert inside the range pushes its last row out",
        arguments: [(2, 2), (0, 0), (19, 19)])
    func beginningInsert(index: Int, row: Int) {
        let out = L.run([L.insert("key", at: index)], Self.first20, 40, 41)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, row), .delete(0, 19)])
    }

    @Test("beginning 1D: an insert outside the range changes nothing")
    func beginning1D() {
        let out = L.run([L.insert("key", at: 20)], Self.first20, 40, 41)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows.isEmpty)
    }

    @Test("beginning 2: a delete inside the range pulls the next row in", arguments: [2, 0, 19])
    func beginningDelete(index: Int) {
        let out = L.run([L.delete("key", at: index)], Self.first20, 40, 39)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.delete(0, index), .insert(0, 19)])
    }

    @Test("beginning 2D: a delete outside the range changes nothing")
    func beginning2D() {
        let out = L.run([L.delete("key", at: 20)], Self.first20, 40, 39)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows.isEmpty)
    }

    @Test(
        "beginning 3A-C: two inserts inside the range push two rows out",
        arguments: [(10, 11, 10), (0, 1, 0), (18, 19, 18)])
    func beginningTwoInserts(index: Int, first: Int, second: Int) {
        let out = L.run(L.inserts(at: [index, index]), Self.first20, 40, 42)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, first), .insert(0, second), .delete(0, 19), .delete(0, 18)])
    }

    @Test("beginning 3D: four inserts at the range's end, two of which end up outside")
    func beginning3D() {
        let out = L.run(L.inserts(at: [18, 18, 18, 18]), Self.first20, 40, 44)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, 19), .insert(0, 18), .delete(0, 19), .delete(0, 18)])
    }

    @Test(
        "beginning 4A-C: two deletes inside the range pull two rows in",
        arguments: [([10, 10], 10, 11), ([0, 0], 0, 1), ([19, 18], 19, 18)])
    func beginningTwoDeletes(indexes: [Int], first: Int, second: Int) {
        let out = L.run(L.deletes(at: indexes), Self.first20, 40, 38)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.delete(0, first), .delete(0, second), .insert(0, 19), .insert(0, 18)])
    }

    @Test("beginning 4D: four deletes at the range's end, two of them outside it")
    func beginning4D() {
        let out = L.run(L.deletes(at: [18, 18, 18, 18]), Self.first20, 40, 36)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.delete(0, 18), .delete(0, 19), .insert(0, 19), .insert(0, 18)])
    }

    @Test(
        "beginning 5A-C: inserts into a range the group does not fill yet grow it up to 20",
        arguments: [(0, 2), (10, 12)])
    func beginningGrowing(before: Int, after: Int) {
        let out = L.run(L.inserts(at: [0, 1]), Self.first20, before, after)
        #expect(out.mappings.numberOfItems(inGroup: "") == after)
        #expect(out.rows == [.insert(0, 0), .insert(0, 1)])
    }

    @Test("beginning 5C: growing past 20 pushes the last row out")
    func beginning5C() {
        let out = L.run(L.inserts(at: [0, 1]), Self.first20, 19, 21)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, 0), .insert(0, 1), .delete(0, 18)])
    }

    @Test("beginning 6A: clearing the group deletes every shown row")
    func beginning6A() {
        let out = L.run([.clearGroup("")], Self.first20, 2, 0)
        #expect(out.mappings.numberOfItems(inGroup: "") == 0)
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test("beginning 6B: clearing a dynamic group deletes its section and the shown rows only")
    func beginning6B() {
        var mappings = L.single(.fixed(length: 2, offset: 0, from: .beginning))
        mappings.isDynamicSectionForAllGroups = true
        let out = L.run([.clearGroup("")], mappings, 4, 0)
        #expect(out.mappings.numberOfItems(inGroup: "") == 0)
        #expect(out.sections == [.delete(0)])
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test("beginning 6C-D: clearing the group and inserting again")
    func beginning6CD() {
        for records in [
            [.clearGroup(""), L.insert("key", at: 0)],
            [L.insert("key", at: 0), .clearGroup(""), L.insert("key", at: 0)],
        ] as [[ViewChangeRecord]] {
            let out = L.run(records, Self.first20, 2, 1)
            #expect(out.mappings.numberOfItems(inGroup: "") == 1)
            #expect(out.rows == [.delete(0, 1), .delete(0, 0), .insert(0, 0)])
        }
    }

    /// Every row of a 54-row group deleted from the bottom of the first 50 up, then the rest.
    static let deleteAll54: [ViewChangeRecord] =
        (0..<50).reversed().map { L.delete("\($0)", at: $0) }
        + (50..<54).reversed().map { L.delete("\($0)", at: $0 - 50) }
        + [.deleteGroup("")]

    @Test("beginning 7A-C: emptying the group empties the range and its position")
    func beginningCleared() {
        let two = L.single(.fixed(length: 2, offset: 0, from: .beginning))
        var fifty = L.single(.fixed(length: 50, offset: 0, from: .beginning))
        fifty.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "")
        let cases: [([ViewChangeRecord], ViewMappings, Int)] = [
            ([.clearGroup("")], two, 4),
            (
                [
                    L.delete("key1", at: 1), L.delete("key0", at: 0), L.delete("key2", at: 0), L.delete("key3", at: 0),
                    .deleteGroup(""),
                ], two, 4
            ),
            (Self.deleteAll54, fifty, 54),
        ]
        for (records, mappings, before) in cases {
            var shown = mappings
            shown.update(groupCounts: ["": before])
            #expect(shown.index(forRow: 0, inGroup: "") == 0)
            let out = L.run(records, mappings, before, 0)
            #expect(out.mappings.numberOfItems(inGroup: "") == 0)
            #expect(
                out.mappings.rangePosition(forGroup: "")
                    == ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: 0))
        }
    }

    @Test("beginning 8A-C: emptying the group then refreshing the mappings directly")
    func beginningClearedRefresh() {
        for options in [
            ViewRangeOptions.fixed(length: 2, offset: 0, from: .beginning),
            .fixed(length: 50, offset: 0, from: .beginning),
        ] {
            var mappings = L.single(options)
            mappings.update(groupCounts: ["": 54])
            mappings.update(groupCounts: ["": 0])
            #expect(mappings.numberOfItems(inGroup: "") == 0)
            #expect(
                mappings.rangePosition(forGroup: "")
                    == ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: 0))
        }
    }

    /// The last 20 rows.
    static let last20 = L.single(.fixed(length: 20, offset: 0, from: .end))

    @Test("end 1: an insert inside the range pushes its first row out", arguments: [(30, 9), (40, 19), (21, 0)])
    func endInsert(index: Int, row: Int) {
        let out = L.run([L.insert("key", at: index)], Self.last20, 40, 41)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, row), .delete(0, 0)])
    }

    @Test("end 1D and 2D: a change before the range changes nothing")
    func endOutside() {
        #expect(L.run([L.insert("key", at: 10)], Self.last20, 40, 41).rows.isEmpty)
        #expect(L.run([L.delete("key", at: 10)], Self.last20, 40, 39).rows.isEmpty)
    }

    @Test("end 2: a delete inside the range pulls the row before it in", arguments: [(30, 10), (20, 0), (39, 19)])
    func endDelete(index: Int, row: Int) {
        let out = L.run([L.delete("key", at: index)], Self.last20, 40, 39)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.delete(0, row), .insert(0, 0)])
    }

    @Test(
        "end 3: inserts inside the range push its first rows out",
        arguments: [
            ([30, 31], 8, 9, 42), ([22, 23], 0, 1, 42), ([40, 41], 18, 19, 42), ([22, 23, 24, 25], 0, 1, 44),
        ])
    func endInserts(indexes: [Int], first: Int, second: Int, after: Int) {
        let out = L.run(L.inserts(at: indexes), Self.last20, 40, after)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.insert(0, first), .insert(0, second), .delete(0, 0), .delete(0, 1)])
    }

    @Test(
        "end 4: deletes inside the range pull the rows before it in",
        arguments: [
            ([30, 30], 10, 11, 38), ([21, 20], 1, 0, 38), ([39, 38], 19, 18, 38), ([18, 18, 18, 18], 0, 1, 36),
        ])
    func endDeletes(indexes: [Int], first: Int, second: Int, after: Int) {
        let out = L.run(L.deletes(at: indexes), Self.last20, 40, after)
        #expect(out.mappings.numberOfItems(inGroup: "") == 20)
        #expect(out.rows == [.delete(0, first), .delete(0, second), .insert(0, 0), .insert(0, 1)])
    }
}
