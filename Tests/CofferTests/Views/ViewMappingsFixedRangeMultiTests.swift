import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic scenarios of fixed ranges on two groups at once
/// (YapDatabase issue #89, an endless loop with ranges on several groups).
@Suite("ViewMappings fixed ranges on several groups")
struct ViewMappingsFixedRangeMultiTests {
    typealias L = ViewLogic

    /// Groups A and B, each showing `options`.
    static func twoGroups(_ options: ViewRangeOptions?) -> ViewMappings {
        var mappings = ViewMappings(groups: ["A", "B"], view: "view")
        mappings.setRangeOptions(options, forGroup: "A")
        mappings.setRangeOptions(options, forGroup: "B")
        return mappings
    }

    @Test(
        "multi 1A and 2A: an insert in each group's range pushes a row out of each",
        arguments: [(ViewRangeOptions.Pin.beginning, 2, 2, 19), (.end, 30, 9, 0)])
    func insertInBoth(pin: ViewRangeOptions.Pin, index: Int, row: Int, pushedOut: Int) {
        let records: [ViewChangeRecord] = [
            L.insert("key", "A", at: index, collection: "A"), L.insert("key", "B", at: index, collection: "B"),
        ]
        let out = L.run(
            records, mappings: Self.twoGroups(.fixed(length: 20, offset: 0, from: pin)),
            before: ["A": 40, "B": 40], after: ["A": 41, "B": 41])
        #expect(out.mappings.numberOfItems(inGroup: "A") == 20)
        #expect(out.mappings.numberOfItems(inGroup: "B") == 20)
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.insert(0, row), .insert(1, row), .delete(0, pushedOut), .delete(1, pushedOut)])
    }
}
