import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic reversed-group scenarios: a group shown last row first,
/// so a change at the view's end is at the top of the list.
@Suite("ViewMappings reversed groups")
struct ViewMappingsReverseTests {
    typealias L = ViewLogic

    @Test(
        "1-2: a delete at either end of a reversed group is reported at the other end",
        arguments: [(6, 5, 0), (5, 0, 4)])
    func reversedDelete(before: Int, index: Int, row: Int) {
        let out = L.run([L.delete("key5", at: index)], L.single(nil, reversed: true), before, before - 1)
        #expect(out.rows == [.delete(0, row)])
    }
}
