import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic flexible-range scenarios: a range that grows and shrinks
/// with the inserts and deletes inside it, pinned to the beginning or the end, with maximum and
/// minimum lengths and grow options.
@Suite("ViewMappings flexible ranges")
struct ViewMappingsFlexibleRangeTests {
    typealias L = ViewLogic
    typealias Pin = ViewRangeOptions.Pin

    /// A flexible range of 20 rows pinned to `pin`.
    static func flexible20(_ pin: Pin) -> ViewMappings {
        L.single(.flexible(length: 20, offset: 0, from: pin))
    }

    /// Mappings of the one group `""` showing a flexible range tuned by `tune`.
    static func flexible(
        length: Int, offset: Int = 0, from pin: Pin, _ tune: (inout ViewRangeOptions) -> Void
    ) -> ViewMappings {
        var options = ViewRangeOptions.flexible(length: length, offset: offset, from: pin)
        if var tuned = options {
            tune(&tuned)
            options = tuned
        }
        return L.single(options)
    }

    /// The rows `mappings` show of a group of `count` rows, before any change.
    static func shown(_ mappings: ViewMappings, _ count: Int) -> Int {
        var mappings = mappings
        mappings.update(groupCounts: ["": count])
        return mappings.numberOfItems(inGroup: "")
    }

    /// One scenario on 40 rows: the records, the rows shown afterwards, the expected changes.
    typealias Scenario = (pin: Pin, records: [ViewChangeRecord], shown: Int, rows: [L.Row])

    @Test(
        "1A-D: a single insert joins the range inside it and at its pinned edge only",
        arguments: [
            (.beginning, [L.insert("key", at: 2)], 21, [.insert(0, 2)]),
            (.beginning, [L.insert("key", at: 0)], 21, [.insert(0, 0)]),
            (.beginning, [L.insert("key", at: 19)], 21, [.insert(0, 19)]),
            (.beginning, [L.insert("key", at: 20)], 20, []),
            (.end, [L.insert("key", at: 30)], 21, [.insert(0, 10)]),
            (.end, [L.insert("key", at: 40)], 21, [.insert(0, 20)]),
            (.end, [L.insert("key", at: 21)], 21, [.insert(0, 1)]),
            (.end, [L.insert("key", at: 20)], 20, []),
        ] as [Scenario])
    func singleInsert(scenario: Scenario) {
        #expect(Self.shown(Self.flexible20(scenario.pin), 40) == 20)
        let out = L.run(scenario.records, Self.flexible20(scenario.pin), 40, 41)
        #expect(out.mappings.numberOfItems(inGroup: "") == scenario.shown)
        #expect(out.rows == scenario.rows)
    }

    @Test(
        "2A-D: a single delete inside the range shrinks it",
        arguments: [
            (.beginning, [L.delete("key", at: 2)], 19, [.delete(0, 2)]),
            (.beginning, [L.delete("key", at: 0)], 19, [.delete(0, 0)]),
            (.beginning, [L.delete("key", at: 19)], 19, [.delete(0, 19)]),
            (.beginning, [L.delete("key", at: 20)], 20, []),
            (.end, [L.delete("key", at: 22)], 19, [.delete(0, 2)]),
            (.end, [L.delete("key", at: 39)], 19, [.delete(0, 19)]),
            (.end, [L.delete("key", at: 20)], 19, [.delete(0, 0)]),
            (.end, [L.delete("key", at: 19)], 20, []),
        ] as [Scenario])
    func singleDelete(scenario: Scenario) {
        #expect(Self.shown(Self.flexible20(scenario.pin), 40) == 20)
        let out = L.run(scenario.records, Self.flexible20(scenario.pin), 40, 39)
        #expect(out.mappings.numberOfItems(inGroup: "") == scenario.shown)
        #expect(out.rows == scenario.rows)
    }

    @Test(
        "3A-D: several inserts join the range, those beyond its far edge do not",
        arguments: [
            (.beginning, L.inserts(at: [10, 10]), 22, [.insert(0, 11), .insert(0, 10)]),
            (.beginning, L.inserts(at: [0, 0]), 22, [.insert(0, 1), .insert(0, 0)]),
            (.beginning, L.inserts(at: [18, 18]), 22, [.insert(0, 19), .insert(0, 18)]),
            (.beginning, L.inserts(at: [20, 20, 19, 19]), 22, [.insert(0, 20), .insert(0, 19)]),
            (.end, L.inserts(at: [30, 31]), 22, [.insert(0, 10), .insert(0, 11)]),
            (.end, L.inserts(at: [40, 41]), 22, [.insert(0, 20), .insert(0, 21)]),
            (.end, L.inserts(at: [21, 21]), 22, [.insert(0, 2), .insert(0, 1)]),
            (.end, L.inserts(at: [20, 20, 23, 23]), 22, [.insert(0, 2), .insert(0, 1)]),
        ] as [Scenario])
    func severalInserts(scenario: Scenario) {
        #expect(Self.shown(Self.flexible20(scenario.pin), 40) == 20)
        let after = 40 + scenario.records.count
        let out = L.run(scenario.records, Self.flexible20(scenario.pin), 40, after)
        #expect(out.mappings.numberOfItems(inGroup: "") == scenario.shown)
        #expect(out.rows == scenario.rows)
    }

    @Test(
        "4A-D: several deletes shrink the range, those outside it change nothing",
        arguments: [
            (.beginning, L.deletes(at: [10, 10]), 18, [.delete(0, 10), .delete(0, 11)]),
            (.beginning, L.deletes(at: [0, 0]), 18, [.delete(0, 0), .delete(0, 1)]),
            (.beginning, L.deletes(at: [19, 18]), 18, [.delete(0, 19), .delete(0, 18)]),
            (.beginning, L.deletes(at: [18, 18, 18, 18]), 18, [.delete(0, 18), .delete(0, 19)]),
            (.end, L.deletes(at: [30, 30]), 18, [.delete(0, 10), .delete(0, 11)]),
            (.end, L.deletes(at: [39, 38]), 18, [.delete(0, 19), .delete(0, 18)]),
            (.end, L.deletes(at: [20, 20]), 18, [.delete(0, 0), .delete(0, 1)]),
            (.end, L.deletes(at: [18, 18, 18, 18]), 18, [.delete(0, 0), .delete(0, 1)]),
        ] as [Scenario])
    func severalDeletes(scenario: Scenario) {
        #expect(Self.shown(Self.flexible20(scenario.pin), 40) == 20)
        let after = 40 - scenario.records.count
        let out = L.run(scenario.records, Self.flexible20(scenario.pin), 40, after)
        #expect(out.mappings.numberOfItems(inGroup: "") == scenario.shown)
        #expect(out.rows == scenario.rows)
    }

    /// A move scenario: the pin, the group's rows, where the row goes from and to, the rows
    /// shown afterwards, the expected changes.
    typealias Move = (pin: Pin, count: Int, from: Int, to: Int, shown: Int, rows: [L.Row])

    @Test(
        "5A-D: a row moving inside the range, out of it or into it",
        arguments: [
            (.beginning, 20, 19, 0, 20, [.move(0, 19, 0, 0)]),
            (.beginning, 20, 18, 1, 20, [.move(0, 18, 0, 1)]),
            (.beginning, 25, 0, 24, 19, [.delete(0, 0)]),
            (.beginning, 25, 24, 0, 21, [.insert(0, 0)]),
            (.end, 20, 0, 19, 20, [.move(0, 0, 0, 19)]),
            (.end, 20, 1, 18, 20, [.move(0, 1, 0, 18)]),
            (.end, 25, 24, 0, 19, [.delete(0, 19)]),
            (.end, 25, 0, 24, 21, [.insert(0, 20)]),
        ] as [Move])
    func move(scenario: Move) {
        #expect(Self.shown(Self.flexible20(scenario.pin), scenario.count) == 20)
        let records = [L.delete("key", at: scenario.from), L.insert("key", at: scenario.to)]
        let out = L.run(records, Self.flexible20(scenario.pin), scenario.count, scenario.count)
        #expect(out.mappings.numberOfItems(inGroup: "") == scenario.shown)
        #expect(out.rows == scenario.rows)
    }

    /// A scenario on a group smaller than the range: the pin, the rows before, the insert
    /// indexes, the rows shown afterwards, the expected changes.
    typealias Growth = (pin: Pin, before: Int, indexes: [Int], shown: Int, rows: [L.Row])

    @Test(
        "6A-C: inserts into a group smaller than the range join it at its pinned edge",
        arguments: [
            (.beginning, 0, [0, 1], 2, [.insert(0, 0), .insert(0, 1)]),
            (.beginning, 10, [10, 0], 11, [.insert(0, 0)]),
            (.beginning, 19, [20, 0], 20, [.insert(0, 0)]),
            (.end, 0, [0, 1], 2, [.insert(0, 0), .insert(0, 1)]),
            (.end, 10, [0, 11], 11, [.insert(0, 10)]),
            (.end, 19, [0, 20], 20, [.insert(0, 19)]),
        ] as [Growth])
    func growth(scenario: Growth) {
        #expect(Self.shown(Self.flexible20(scenario.pin), scenario.before) == scenario.before)
        let out = L.run(
            L.inserts(at: scenario.indexes), Self.flexible20(scenario.pin), scenario.before,
            scenario.before + scenario.indexes.count)
        #expect(out.mappings.numberOfItems(inGroup: "") == scenario.shown)
        #expect(out.rows == scenario.rows)
    }

    @Test("7A: resetting the group deletes every shown row", arguments: [Pin.beginning, .end])
    func reset(pin: Pin) {
        let out = L.run([.clearGroup("")], Self.flexible20(pin), 2, 0)
        #expect(out.mappings.numberOfItems(inGroup: "") == 0)
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test("7B-C: resetting the group and inserting again", arguments: [Pin.beginning, .end])
    func resetInsert(pin: Pin) {
        for records in [
            [.clearGroup(""), L.insert("key", at: 0)],
            [L.insert("key", at: 0), .clearGroup(""), L.insert("key", at: 0)],
        ] as [[ViewChangeRecord]] {
            let out = L.run(records, Self.flexible20(pin), 2, 1)
            #expect(out.mappings.numberOfItems(inGroup: "") == 1)
            #expect(out.rows == [.delete(0, 1), .delete(0, 0), .insert(0, 0)])
        }
    }

    @Test("8A: inserts past the maximum length push rows out at the far end")
    func maxLength() {
        #expect(Self.shown(Self.flexible(length: 8, from: .beginning) { $0.maxLength = 10 }, 8) == 8)
        let records = [L.insert("key2", at: 0), L.insert("key1", at: 0), L.insert("key0", at: 0)]
        let beginning = L.run(records, Self.flexible(length: 8, from: .beginning) { $0.maxLength = 10 }, 8, 11)
        #expect(beginning.mappings.numberOfItems(inGroup: "") == 10)
        #expect(beginning.rows == [.insert(0, 2), .insert(0, 1), .insert(0, 0), .delete(0, 7)])

        let appended = [L.insert("key2", at: 8), L.insert("key1", at: 9), L.insert("key0", at: 10)]
        let end = L.run(appended, Self.flexible(length: 8, from: .end) { $0.maxLength = 10 }, 8, 11)
        #expect(end.mappings.numberOfItems(inGroup: "") == 10)
        #expect(end.rows == [.insert(0, 7), .insert(0, 8), .insert(0, 9), .delete(0, 0)])
    }

    @Test("8B: deletes below the minimum length pull the next row in at the far end")
    func minLength() {
        #expect(Self.shown(Self.flexible(length: 6, from: .end) { $0.minLength = 5 }, 10) == 6)
        let beginning = L.run(
            L.deletes(at: [0, 0]), Self.flexible(length: 6, from: .beginning) { $0.minLength = 5 }, 10, 8)
        #expect(beginning.mappings.numberOfItems(inGroup: "") == 5)
        #expect(beginning.rows == [.delete(0, 0), .delete(0, 1), .insert(0, 4)])

        let end = L.run(L.deletes(at: [9, 8]), Self.flexible(length: 6, from: .end) { $0.minLength = 5 }, 10, 8)
        #expect(end.mappings.numberOfItems(inGroup: "") == 5)
        #expect(end.rows == [.delete(0, 5), .delete(0, 4), .insert(0, 0)])
    }

    @Test("8C: deletes below the minimum length pull in rows on both sides and reach the pinned end")
    func minLengthBothSides() {
        var beginning = Self.flexible(length: 6, offset: 1, from: .beginning) { $0.minLength = 5 }
        var shown = beginning
        shown.update(groupCounts: ["": 20])
        #expect(shown.numberOfItems(inGroup: "") == 6)
        #expect(shown.index(forRow: 0, inGroup: "") == 1)
        let fromBeginning = L.run(L.deletes(at: [1, 1, 1]), beginning, 20, 17)
        beginning = fromBeginning.mappings
        #expect(beginning.numberOfItems(inGroup: "") == 5)
        #expect(beginning.rangeOptions(forGroup: "")?.length == 5)
        #expect(beginning.rangeOptions(forGroup: "")?.offset == 0)
        #expect(
            fromBeginning.rows == [.delete(0, 0), .delete(0, 1), .delete(0, 2), .insert(0, 0), .insert(0, 4)])

        var end = Self.flexible(length: 6, offset: 1, from: .end) { $0.minLength = 5 }
        shown = end
        shown.update(groupCounts: ["": 20])
        #expect(shown.numberOfItems(inGroup: "") == 6)
        #expect(shown.index(forRow: 0, inGroup: "") == 13)
        let fromEnd = L.run(L.deletes(at: [18, 17, 16]), end, 20, 17)
        end = fromEnd.mappings
        #expect(end.numberOfItems(inGroup: "") == 5)
        #expect(end.rangeOptions(forGroup: "")?.length == 5)
        #expect(end.rangeOptions(forGroup: "")?.offset == 0)
        #expect(fromEnd.rows == [.delete(0, 5), .delete(0, 4), .delete(0, 3), .insert(0, 4), .insert(0, 0)])
    }

    /// The three ways of emptying the group for `pin`, with the rows before, the rows
    /// shown and the index shown at row 0.
    ///
    /// A reset of 4 rows showing 2; each row deleted, then the group; and every row of 54
    /// deleted while 50 are shown with a drawing dependency.
    static func emptyings(_ pin: Pin) -> [([ViewChangeRecord], ViewMappings, Int, Int, Int)] {
        let two = L.single(.flexible(length: 2, offset: 0, from: pin))
        var fifty = L.single(.flexible(length: 50, offset: 0, from: pin))
        fifty.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "")
        let deletes: [ViewChangeRecord] = [
            L.delete("key1", at: 1), L.delete("key0", at: 0), L.delete("key2", at: 0), L.delete("key3", at: 0),
            .deleteGroup(""),
        ]
        let atEnd = pin == .end
        return [
            ([.clearGroup("")], two, 4, 2, atEnd ? 2 : 0),
            (deletes, two, 4, 2, atEnd ? 2 : 0),
            (ViewMappingsFixedRangeTests.deleteAll54, fifty, 54, 50, atEnd ? 4 : 0),
        ]
    }

    @Test("9A-C: emptying the group empties the range and its position", arguments: [Pin.beginning, .end])
    func cleared(pin: Pin) {
        for (records, mappings, before, shownBefore, firstIndex) in Self.emptyings(pin) {
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

    @Test("10A-C: emptying the group then refreshing the mappings directly", arguments: [Pin.beginning, .end])
    func clearedRefresh(pin: Pin) {
        for (_, mappings, before, shownBefore, firstIndex) in Self.emptyings(pin) {
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

    @Test(
        "11A-C: with a minimum length and growth on both sides, a delete pulls the remaining row in",
        arguments: [
            (Pin.beginning, 0, [L.Row.delete(0, 0), .insert(0, 2)]),
            (.beginning, 2, [.delete(0, 2), .insert(0, 2)]),
            (.beginning, 1, [.delete(0, 1), .insert(0, 2)]),
            (.end, 1, [.delete(0, 0), .insert(0, 0)]),
            (.end, 3, [.delete(0, 2), .insert(0, 0)]),
            (.end, 2, [.delete(0, 1), .insert(0, 0)]),
        ])
    func growOnBothSides(pin: Pin, index: Int, rows: [L.Row]) {
        let mappings = Self.flexible(length: 3, from: pin) {
            $0.minLength = 3
            $0.growOptions = .onBothSides
        }
        var shown = mappings
        shown.update(groupCounts: ["": 4])
        #expect(shown.numberOfItems(inGroup: "") == 3)
        #expect(shown.index(forRow: 0, inGroup: "") == (pin == .end ? 1 : 0))
        let out = L.run([L.delete("key", at: index)], mappings, 4, 3)
        #expect(out.mappings.numberOfItems(inGroup: "") == 3)
        #expect(out.sections.isEmpty)
        #expect(out.rows == rows)
        #expect(
            out.mappings.rangePosition(forGroup: "")
                == ViewRangePosition(offsetFromBeginning: 0, offsetFromEnd: 0, length: 3))
    }
}
