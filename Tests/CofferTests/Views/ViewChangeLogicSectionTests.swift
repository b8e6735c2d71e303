import Testing

@testable import Coffer

/// YapDatabase's TestViewChangeLogic section scenarios: groups appearing and disappearing as
/// sections, rows moving between them, cleared groups, and the regressions YapDatabase
/// collected (two NSFetchedResultsController bugs from its author's blog, and issue #125).
///
/// The comments show each group's rows after each recorded change.
@Suite("ViewChangeLogic sections")
struct ViewChangeLogicSectionTests {
    typealias L = ViewLogic

    // Section insert: A gets its first row, lion.

    @Test("1A: a dynamic group's first row inserts its section")
    func section1A() {
        let out = L.run(
            [.insertGroup("A"), L.insert("lion", "A", at: 0)], mappings: L.mappings(["A"]), before: ["A": 0],
            after: ["A": 1])
        #expect(out.sections == [.insert(0)])
        #expect(out.rows == [.insert(0, 0)])
    }

    @Test("1B: a static group's first row inserts no section")
    func section1B() {
        let out = L.run(
            [.insertGroup("A"), L.insert("lion", "A", at: 0)], mappings: L.mappings(["A"], dynamic: false),
            before: ["A": 0], after: ["A": 1])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.insert(0, 0)])
    }

    // Section delete: A loses its last row, lion.

    @Test("2A: a dynamic group's last row deletes its section")
    func section2A() {
        let out = L.run(
            [L.delete("lion", "A", at: 0), .deleteGroup("A")], mappings: L.mappings(["A"]), before: ["A": 1],
            after: ["A": 0])
        #expect(out.sections == [.delete(0)])
        #expect(out.rows == [.delete(0, 0)])
    }

    @Test("2B: a static group's last row deletes no section")
    func section2B() {
        let out = L.run(
            [L.delete("lion", "A", at: 0), .deleteGroup("A")], mappings: L.mappings(["A"], dynamic: false),
            before: ["A": 1], after: ["A": 0])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 0)])
    }

    // Section insert plus other rows. A: elm; B appears.

    @Test("3A: B appears after A, which gains oak")
    func section3A() {
        let out = L.run(
            [.insertGroup("B"), L.insert("lion", "B", at: 0), L.insert("oak", "A", at: 1)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 0], after: ["A": 2, "B": 1])
        #expect(out.sections == [.insert(1)])
        #expect(out.rows == [.insert(1, 0), .insert(0, 1)])
    }

    @Test("3B: A appears before B, which gains oak")
    func section3B() {
        let out = L.run(
            [.insertGroup("A"), L.insert("lion", "A", at: 0), L.insert("oak", "B", at: 1)],
            mappings: L.mappings(["A", "B"]), before: ["A": 0, "B": 1], after: ["A": 1, "B": 2])
        #expect(out.sections == [.insert(0)])
        #expect(out.rows == [.insert(0, 0), .insert(1, 1)])
    }

    @Test("3C: B appears after A, whose elm is updated in place")
    func section3C() {
        let out = L.run(
            [.insertGroup("B"), L.insert("lion", "B", at: 0), L.update("elm", "A", at: 0)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 0], after: ["A": 1, "B": 1])
        #expect(out.sections == [.insert(1)])
        #expect(out.rows == [.insert(1, 0), .update(0, 0)])
        let update = out.changes.rowChanges[1]
        #expect(update.finalIndexPath == ViewIndexPath(section: 0, row: 0))
    }

    @Test("3D: A appears before B, so B's updated elm changes section and moves")
    func section3D() {
        let out = L.run(
            [.insertGroup("A"), L.insert("lion", "A", at: 0), L.update("elm", "B", at: 0)],
            mappings: L.mappings(["A", "B"]), before: ["A": 0, "B": 1], after: ["A": 1, "B": 1])
        #expect(out.sections == [.insert(0)])
        #expect(out.rows == [.insert(0, 0), .move(0, 0, 1, 0)])
    }

    // Section delete plus other rows.

    @Test("4A: B disappears after A, which gains oak")
    func section4A() {
        let out = L.run(
            [L.delete("lion", "B", at: 0), .deleteGroup("B"), L.insert("oak", "A", at: 1)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 1], after: ["A": 2, "B": 0])
        #expect(out.sections == [.delete(1)])
        #expect(out.rows == [.delete(1, 0), .insert(0, 1)])
    }

    @Test("4B: A disappears before B, which gains bear")
    func section4B() {
        let out = L.run(
            [L.delete("elm", "A", at: 0), .deleteGroup("A"), L.insert("bear", "B", at: 1)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 1], after: ["A": 0, "B": 2])
        #expect(out.sections == [.delete(0)])
        #expect(out.rows == [.delete(0, 0), .insert(0, 1)])
    }

    @Test("4C: B disappears after A, whose elm is updated in place")
    func section4C() {
        let out = L.run(
            [L.delete("lion", "B", at: 0), .deleteGroup("B"), L.update("elm", "A", at: 0)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 1], after: ["A": 1, "B": 0])
        #expect(out.sections == [.delete(1)])
        #expect(out.rows == [.delete(1, 0), .update(0, 0)])
    }

    @Test("4D: A disappears before B, so B's updated lion changes section and moves")
    func section4D() {
        let out = L.run(
            [L.delete("elm", "A", at: 0), .deleteGroup("A"), L.update("lion", "B", at: 0)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 1], after: ["A": 0, "B": 1])
        #expect(out.sections == [.delete(0)])
        #expect(out.rows == [.delete(0, 0), .move(1, 0, 0, 0)])
    }

    // Section insert and delete in one batch. A, B, C.

    @Test("5A: C appears, A disappears")
    func section5A() {
        let out = L.run(
            [.insertGroup("C"), L.insert("john", "C", at: 0), L.delete("elm", "A", at: 0), .deleteGroup("A")],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 1, "C": 0], after: ["A": 0, "B": 1, "C": 1])
        #expect(out.sections == [.insert(1), .delete(0)])
        #expect(out.rows == [.insert(1, 0), .delete(0, 0)])
    }

    @Test("5B: A appears, C disappears")
    func section5B() {
        let out = L.run(
            [.insertGroup("A"), L.insert("elm", "A", at: 0), L.delete("john", "C", at: 0), .deleteGroup("C")],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 0, "B": 1, "C": 1], after: ["A": 1, "B": 1, "C": 0])
        #expect(out.sections == [.insert(0), .delete(1)])
        #expect(out.rows == [.insert(0, 0), .delete(1, 0)])
    }

    @Test("5C: B appears, C disappears, both at section 1")
    func section5C() {
        let out = L.run(
            [.insertGroup("B"), L.insert("lion", "B", at: 0), L.delete("john", "C", at: 0), .deleteGroup("C")],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 0, "C": 1], after: ["A": 1, "B": 1, "C": 0])
        #expect(out.sections == [.insert(1), .delete(1)])
        #expect(out.rows == [.insert(1, 0), .delete(1, 0)])
    }

    // Two section inserts.

    @Test("6A: B then C appear")
    func section6A() {
        let out = L.run(
            [.insertGroup("B"), L.insert("lion", "B", at: 0), .insertGroup("C"), L.insert("john", "C", at: 0)],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 0, "C": 0], after: ["A": 1, "B": 1, "C": 1])
        #expect(out.sections == [.insert(1), .insert(2)])
        #expect(out.rows == [.insert(1, 0), .insert(2, 0)])
    }

    @Test("6B: C then B appear")
    func section6B() {
        let out = L.run(
            [.insertGroup("C"), L.insert("john", "C", at: 0), .insertGroup("B"), L.insert("lion", "B", at: 0)],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 0, "C": 0], after: ["A": 1, "B": 1, "C": 1])
        #expect(out.sections == [.insert(2), .insert(1)])
        #expect(out.rows == [.insert(2, 0), .insert(1, 0)])
    }

    // Two section deletes.

    @Test("7A: B then C disappear")
    func section7A() {
        let out = L.run(
            [L.delete("lion", "B", at: 0), .deleteGroup("B"), L.delete("john", "C", at: 0), .deleteGroup("C")],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 1, "C": 1], after: ["A": 1, "B": 0, "C": 0])
        #expect(out.sections == [.delete(1), .delete(2)])
        #expect(out.rows == [.delete(1, 0), .delete(2, 0)])
    }

    @Test("7B: C then B disappear")
    func section7B() {
        let out = L.run(
            [L.delete("john", "C", at: 0), .deleteGroup("C"), L.delete("lion", "B", at: 0), .deleteGroup("B")],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 1, "C": 1], after: ["A": 1, "B": 0, "C": 0])
        #expect(out.sections == [.delete(2), .delete(1)])
        #expect(out.rows == [.delete(2, 0), .delete(1, 0)])
    }

    // Rows moving between sections.

    @Test("8A: john moves from C, which the mappings do not show, into a new section B")
    func section8A() {
        let out = L.run(
            [L.delete("john", "C", at: 0), .deleteGroup("C"), .insertGroup("B"), L.insert("john", "B", at: 0)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 0], after: ["A": 1, "B": 1])
        #expect(out.sections == [.insert(1)])
        #expect(out.rows == [.insert(1, 0)])
    }

    @Test("8B: oak moves from B, which disappears, to the end of A")
    func section8B() {
        let out = L.run(
            [L.delete("oak", "B", at: 0), .deleteGroup("B"), L.insert("oak", "A", at: 1)],
            mappings: L.mappings(["A", "B"]), before: ["A": 1, "B": 1], after: ["A": 2, "B": 0])
        #expect(out.sections == [.delete(1)])
        #expect(out.rows == [.move(1, 0, 0, 1)])
    }

    @Test("8C: oak moves from C to a new section B at the same section index")
    func section8C() {
        let out = L.run(
            [L.delete("oak", "C", at: 0), .deleteGroup("C"), .insertGroup("B"), L.insert("oak", "B", at: 0)],
            mappings: L.mappings(["A", "B", "C"]), before: ["A": 1, "B": 0, "C": 1], after: ["A": 1, "B": 1, "C": 0])
        #expect(out.sections == [.delete(1), .insert(1)])
        #expect(out.rows == [.move(1, 0, 1, 0)])
    }

    @Test("9A: oak is updated in B, which the mappings do not show, then moves into A")
    func section9A() {
        let out = L.run(
            [L.update("oak", "B", at: 0), L.delete("oak", "B", at: 0), L.insert("oak", "A", at: 1)],
            mappings: L.mappings(["A"]), before: ["A": 1], after: ["A": 2])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.insert(0, 1)])
    }

    @Test("10A: A is dropped and re-added in one batch: no section change")
    func section10A() {
        let out = L.run(
            [L.delete("elm", "A", at: 0), .deleteGroup("A"), .insertGroup("A"), L.insert("oak", "A", at: 0)],
            mappings: L.mappings(["A"]), before: ["A": 1], after: ["A": 1])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 0), .insert(0, 0)])
    }

    @Test("11A: A is added and dropped again in one batch: nothing")
    func section11A() {
        let out = L.run(
            [.insertGroup("A"), L.insert("oak", "A", at: 0), L.delete("oak", "A", at: 0), .deleteGroup("A")],
            mappings: L.mappings(["A"]), before: ["A": 1], after: ["A": 1])
        #expect(out.changes.isEmpty)
    }

    // A cleared group: elm and oak removed without a record each.

    @Test("12A: clearing a dynamic group deletes its section and each row, last first")
    func section12A() {
        let out = L.run([.clearGroup("A")], mappings: L.mappings(["A"]), before: ["A": 2], after: ["A": 0])
        #expect(out.sections == [.delete(0)])
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test("12B: clearing a static group deletes each row but not the section")
    func section12B() {
        let out = L.run(
            [.clearGroup("A")], mappings: L.mappings(["A"], dynamic: false), before: ["A": 2], after: ["A": 0])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 1), .delete(0, 0)])
    }

    @Test("12C: clearing a group and adding pine back keeps the section")
    func section12C() {
        let out = L.run(
            [.clearGroup("A"), .insertGroup("A"), L.insert("pine", "A", at: 0)], mappings: L.mappings(["A"]),
            before: ["A": 2], after: ["A": 1])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 1), .delete(0, 0), .insert(0, 0)])
    }

    // NSFetchedResultsController bugs from YapDatabase's author's blog.

    @Test("blog bug 1: austin moves into a new first section at the same index path")
    func blogBug1() {
        let out = L.run(
            [L.delete("austin", "B", at: 0), .insertGroup("A"), L.insert("austin", "A", at: 0)],
            mappings: L.mappings(["A", "B"]), before: ["A": 0, "B": 4], after: ["A": 1, "B": 3])
        #expect(out.sections == [.insert(0)])
        #expect(out.rows == [.move(0, 0, 0, 0)])
    }

    @Test("blog bug 2: an insert above a row that moves back to its own index")
    func blogBug2() {
        let out = L.run(
            [L.insert("AAA", "A", at: 0), L.delete("zach/quack", "A", at: 4), L.insert("zach/quack", "A", at: 3)],
            mappings: L.mappings(["A"]), before: ["A": 4], after: ["A": 5])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.insert(0, 0), .move(0, 3, 0, 3)])
    }

    // YapDatabase issue #125: rows inserted into A and every row then moved to B, which the
    // mappings do not show; a list crashed on a delete and a reload of the same row.

    static let issue125Moves: [ViewChangeRecord] = [
        L.delete("k0", "A", at: 0, collection: "Chats"), L.insert("k0", "B", at: 18, collection: "Chats"),
        L.delete("k1", "A", at: 0, collection: "Chats"), L.insert("k1", "B", at: 19, collection: "Chats"),
        L.delete("k2", "A", at: 0, collection: "Chats"), L.insert("k2", "B", at: 20, collection: "Chats"),
    ]

    @Test("issue 125 (1): one row added, all moved out")
    func issue125One() {
        let records = [L.insert("k2", "A", at: 2, collection: "Chats")] + Self.issue125Moves + [.deleteGroup("A")]
        let out = L.run(records, mappings: ViewMappings(groups: ["A"]), before: ["A": 2], after: ["A": 0])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 0), .delete(0, 1)])
    }

    @Test("issue 125 (2): the same with a drawing dependency on the row above")
    func issue125Two() {
        let records = [L.insert("k2", "A", at: 2, collection: "Chats")] + Self.issue125Moves + [.deleteGroup("A")]
        var mappings = ViewMappings(groups: ["A"])
        mappings.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "A")
        let out = L.run(records, mappings: mappings, before: ["A": 2], after: ["A": 0])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 0), .delete(0, 1)])
    }

    @Test("issue 125 (3): two rows added, all moved out, with a drawing dependency")
    func issue125Three() {
        let records =
            [L.insert("k3", "A", at: 2, collection: "Chats"), L.insert("k2", "A", at: 2, collection: "Chats")]
            + Self.issue125Moves
            + [
                L.delete("k3", "A", at: 0, collection: "Chats"), L.insert("k3", "B", at: 21, collection: "Chats"),
                .deleteGroup("A"),
            ]
        var mappings = ViewMappings(groups: ["A"])
        mappings.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "A")
        let out = L.run(records, mappings: mappings, before: ["A": 2], after: ["A": 0])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 0), .delete(0, 1)])
    }

    @Test("issue 125 (4): a delete first, two rows added, all moved out, with a drawing dependency")
    func issue125Four() {
        let records: [ViewChangeRecord] = [
            L.delete("k0", "A", at: 0, collection: "Chats"),
            L.insert("k3", "A", at: 1, collection: "Chats"), L.insert("k2", "A", at: 1, collection: "Chats"),
            L.delete("k1", "A", at: 0, collection: "Chats"), L.insert("k1", "B", at: 18, collection: "Chats"),
            L.delete("k2", "A", at: 0, collection: "Chats"), L.insert("k2", "B", at: 19, collection: "Chats"),
            L.delete("k3", "A", at: 0, collection: "Chats"), L.insert("k3", "B", at: 20, collection: "Chats"),
            .deleteGroup("A"),
        ]
        var mappings = ViewMappings(groups: ["A"])
        mappings.setCellDrawingDependency(forNeighboringCellWithOffset: -1, forGroup: "A")
        let out = L.run(records, mappings: mappings, before: ["A": 2], after: ["A": 0])
        #expect(out.sections.isEmpty)
        #expect(out.rows == [.delete(0, 0), .delete(0, 1)])
    }

    // The platform's reset, which YapDatabase reports through its notifications instead.

    @Test("a reset among the records reports a reset and refreshes the final ranges")
    func platformReset() {
        var mappings = ViewMappings(groups: ["A"])
        mappings.setRangeOptions(.fixed(length: 5, offset: 0, from: .beginning), forGroup: "A")
        mappings.update(groupCounts: ["A": 2])
        let changes = ViewChanges.advance(
            &mappings, groupCounts: ["A": 40], records: [L.insert("x", "A", at: 0), .reset, L.insert("y", "A", at: 0)])
        #expect(changes == .reset)
        #expect(changes.isReset && !changes.isEmpty && changes.rowChanges.isEmpty)
        #expect(mappings.numberOfItems(inGroup: "A") == 5)
    }

    @Test("advance moves the mappings to the new counts and returns the changes")
    func advance() {
        var mappings = L.mappings(["A", "B"])
        mappings.update(groupCounts: ["A": 1, "B": 0])
        let changes = ViewChanges.advance(
            &mappings, groupCounts: ["A": 1, "B": 1], records: [.insertGroup("B"), L.insert("lion", "B", at: 0)])
        #expect(changes.sectionChanges.map(L.Section.init) == [.insert(1)])
        #expect(changes.rowChanges.map(L.Row.init) == [.insert(1, 0)])
        #expect(changes.rowChanges.first?.collectionKey == CollectionKey(collection: "", key: "lion"))
        #expect(mappings.numberOfSections == 2)
    }
}
