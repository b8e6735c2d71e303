import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic getter scenarios: translating between the UI's rows and
/// the view's indexes with ranges from either end, offsets and reversal.
@Suite("ViewMappings getters")
struct ViewMappingsGetterTests {
    /// One getter scenario and the translations it expects.
    ///
    /// The range (if any), whether the group is reversed, its rows, the view index shown at
    /// each UI row from 0, and the UI row of each view index from 0 (`nil` where none is
    /// shown). Both lists are checked one past their end.
    typealias Scenario = (range: ViewRangeOptions?, reversed: Bool, count: Int, indexes: [Int], rows: [Int?])

    @Test(
        "1-10: rows to indexes and back",
        arguments: [
            (nil, false, 3, [0, 1, 2], [0, 1, 2]),
            (nil, true, 4, [3, 2, 1, 0], [3, 2, 1, 0]),
            (.fixed(length: 4, offset: 0, from: .beginning), false, 5, [0, 1, 2, 3], [0, 1, 2, 3, nil]),
            (.fixed(length: 4, offset: 1, from: .beginning), false, 6, [1, 2, 3, 4], [nil, 0, 1, 2, 3, nil]),
            (.fixed(length: 4, offset: 0, from: .end), false, 5, [1, 2, 3, 4], [nil, 0, 1, 2, 3]),
            (.fixed(length: 4, offset: 1, from: .end), false, 6, [1, 2, 3, 4], [nil, 0, 1, 2, 3, nil]),
            // Departure (3): reversing after setting the range keeps "the first 4" at the top.
            (.fixed(length: 4, offset: 0, from: .beginning), true, 5, [4, 3, 2, 1], [nil, 3, 2, 1, 0]),
            (.fixed(length: 4, offset: 1, from: .beginning), true, 6, [4, 3, 2, 1], [nil, 3, 2, 1, 0, nil]),
            // Departure (3): reversing after setting the range keeps "the last 4" at the bottom.
            (.fixed(length: 4, offset: 0, from: .end), true, 5, [3, 2, 1, 0], [3, 2, 1, 0, nil]),
            (.fixed(length: 4, offset: 1, from: .end), true, 6, [4, 3, 2, 1], [nil, 3, 2, 1, 0, nil]),
        ] as [Scenario])
    func getters(scenario: Scenario) {
        var mappings = ViewMappings(groups: [""], view: "view")
        mappings.setRangeOptions(scenario.range, forGroup: "")
        mappings.setIsReversed(scenario.reversed, forGroup: "")
        mappings.update(groupCounts: ["": scenario.count])
        for (row, index) in scenario.indexes.enumerated() {
            #expect(mappings.index(forRow: row, inSection: 0) == index)
        }
        #expect(mappings.index(forRow: scenario.indexes.count, inSection: 0) == nil)
        for (index, row) in scenario.rows.enumerated() {
            #expect(mappings.row(forIndex: index, inGroup: "") == row)
        }
        #expect(mappings.row(forIndex: scenario.rows.count, inGroup: "") == nil)
    }
}
