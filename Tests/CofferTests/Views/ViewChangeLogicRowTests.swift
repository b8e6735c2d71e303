import Testing

@testable import Coffer

/// YapDatabase's TestViewChangeLogic row scenarios: the index each change had when it was
/// recorded becomes its index in the old or new list, and changes to one row merge.
///
/// The lists in the comments show the group after each recorded change.
@Suite("ViewChangeLogic rows")
struct ViewChangeLogicRowTests {
    typealias L = ViewLogic

    // Delete, delete. Start: lion tiger bear cat dog.

    @Test("1A: delete bear, then lion above it")
    func row1A() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.delete("lion", at: 0)])
        #expect(ops == [.delete(2), .delete(0)])
    }

    @Test("1B: delete bear, then cat sliding into its index")
    func row1B() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.delete("cat", at: 2)])
        #expect(ops == [.delete(2), .delete(3)])
    }

    @Test("1C: delete bear, then dog below it")
    func row1C() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.delete("dog", at: 3)])
        #expect(ops == [.delete(2), .delete(4)])
    }

    // Insert, insert.

    @Test("2A: insert zebra, then goat above it")
    func row2A() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.insert("goat", at: 0)])
        #expect(ops == [.insert(3), .insert(0)])
    }

    @Test("2B: insert zebra, then goat at its index")
    func row2B() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.insert("goat", at: 2)])
        #expect(ops == [.insert(3), .insert(2)])
    }

    @Test("2C: insert zebra, then goat at the end")
    func row2C() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.insert("goat", at: 6)])
        #expect(ops == [.insert(2), .insert(6)])
    }

    // Delete, insert.

    @Test("3A: delete bear, insert zebra at the top")
    func row3A() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 0)])
        #expect(ops == [.delete(2), .insert(0)])
    }

    @Test("3B: delete bear, insert zebra at its index")
    func row3B() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 2)])
        #expect(ops == [.delete(2), .insert(2)])
    }

    @Test("3C: delete bear, insert zebra at the end")
    func row3C() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 4)])
        #expect(ops == [.delete(2), .insert(4)])
    }

    // Insert, delete.

    @Test("4A: insert zebra, delete lion above it")
    func row4A() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.delete("lion", at: 0)])
        #expect(ops == [.insert(1), .delete(0)])
    }

    @Test("4B: insert zebra, delete tiger just above it")
    func row4B() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.delete("tiger", at: 1)])
        #expect(ops == [.insert(1), .delete(1)])
    }

    @Test("4C: insert zebra, delete bear just below it")
    func row4C() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.delete("bear", at: 3)])
        #expect(ops == [.insert(2), .delete(2)])
    }

    @Test("4D: insert zebra, delete cat further below")
    func row4D() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.delete("cat", at: 4)])
        #expect(ops == [.insert(2), .delete(3)])
    }

    // Insert, delete, delete.

    @Test("5A: insert zebra, delete lion and tiger above it")
    func row5A() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.delete("lion", at: 0), L.delete("tiger", at: 0)])
        #expect(ops == [.insert(0), .delete(0), .delete(1)])
    }

    @Test("5B: insert zebra, delete tiger above and bear below")
    func row5B() {
        let ops = L.processedRows([L.insert("zebra", at: 2), L.delete("tiger", at: 1), L.delete("bear", at: 2)])
        #expect(ops == [.insert(1), .delete(1), .delete(2)])
    }

    // Delete, insert, insert.

    @Test("6A: delete bear, insert zebra then goat at the top")
    func row6A() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 0), L.insert("goat", at: 0)])
        #expect(ops == [.delete(2), .insert(1), .insert(0)])
    }

    @Test("6B: delete bear, insert zebra at the top and goat below it")
    func row6B() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 0), L.insert("goat", at: 1)])
        #expect(ops == [.delete(2), .insert(0), .insert(1)])
    }

    @Test("6C: delete bear, insert zebra at 1 and goat at the top")
    func row6C() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 1), L.insert("goat", at: 0)])
        #expect(ops == [.delete(2), .insert(2), .insert(0)])
    }

    @Test("6D: delete bear, insert zebra at 1 and goat below it")
    func row6D() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 1), L.insert("goat", at: 2)])
        #expect(ops == [.delete(2), .insert(1), .insert(2)])
    }

    @Test("6E: delete bear, insert zebra at 2 and goat above it")
    func row6E() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 2), L.insert("goat", at: 1)])
        #expect(ops == [.delete(2), .insert(3), .insert(1)])
    }

    @Test("6F: delete bear, insert zebra then goat at 2")
    func row6F() {
        let ops = L.processedRows([L.delete("bear", at: 2), L.insert("zebra", at: 2), L.insert("goat", at: 2)])
        #expect(ops == [.delete(2), .insert(3), .insert(2)])
    }

    // Insert, then several deletes.

    @Test("7A: insert zebra, delete everything above and below it in order")
    func row7A() {
        let ops = L.processedRows([
            L.insert("zebra", at: 2), L.delete("lion", at: 0), L.delete("tiger", at: 0), L.delete("bear", at: 1),
            L.delete("cat", at: 1),
        ])
        #expect(ops == [.insert(0), .delete(0), .delete(1), .delete(2), .delete(3)])
    }

    @Test("7B: insert zebra, delete around it out of order")
    func row7B() {
        let ops = L.processedRows([
            L.insert("zebra", at: 2), L.delete("tiger", at: 1), L.delete("lion", at: 0), L.delete("cat", at: 2),
            L.delete("bear", at: 1),
        ])
        #expect(ops == [.insert(0), .delete(1), .delete(0), .delete(3), .delete(2)])
    }

    @Test("7C: insert zebra, delete below it first, then above")
    func row7C() {
        let ops = L.processedRows([
            L.insert("zebra", at: 2), L.delete("bear", at: 3), L.delete("cat", at: 3), L.delete("lion", at: 0),
            L.delete("tiger", at: 0),
        ])
        #expect(ops == [.insert(0), .delete(2), .delete(3), .delete(0), .delete(1)])
    }

    // Delete, then several inserts.

    @Test("8A: delete bear, insert three rows in a run")
    func row8A() {
        let ops = L.processedRows([
            L.delete("bear", at: 2), L.insert("zebra", at: 1), L.insert("goat", at: 2), L.insert("fish", at: 3),
        ])
        #expect(ops == [.delete(2), .insert(1), .insert(2), .insert(3)])
    }

    // Move.

    @Test("9A: delete lion and re-insert it at the end is a move")
    func row9A() {
        let ops = L.processedRows([L.delete("lion", at: 0), L.insert("lion", at: 2)])
        #expect(ops == [.move(0, 2)])
    }
}
