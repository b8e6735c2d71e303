import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// YapDatabase's testMultiPage and testViewPopulation: 150 rows over pages of 50, changed a
/// page, a fifth and everything at a time, read on the writer, a second connection and a
/// connection opened afterwards.
extension AutoViewBehaviourTests {
    /// Keys `key<i>` with objects `object<i>`, which the view sorts by `i`.
    static func keys(_ indexes: some Sequence<Int>) -> [String] { indexes.map { "key\($0)" } }

    static func set(_ indexes: some Sequence<Int>, _ tx: ReadWriteTransaction) throws {
        for index in indexes { try tx.setObject("object\(index)", forKey: "key\(index)", inCollection: nil) }
    }

    /// Writes with `body` on `writer`, then checks `expected` on `writer`, `sibling` and a new connection.
    static func writePages(
        _ test: TestDatabase, _ writer: Connection, _ sibling: Connection, expecting expected: [String],
        sourceLocation: SourceLocation = #_sourceLocation, _ body: (ReadWriteTransaction) throws -> Void
    ) throws {
        try writer.readWrite(body)
        for connection in [writer, sibling, try test.connection()] {
            try connection.read { tx in try expectOrder(tx, expected, sourceLocation: sourceLocation) }
        }
    }

    @Test(arguments: [true, false])
    func pagesOf50SplitEmptyAndRefillAcross150Rows(persistent: Bool) throws {
        let test = try TestDatabase()
        let one = try test.connection()
        let two = try test.connection()
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")
        let all = Self.keys(0..<150)
        let everyFifthGone = Self.keys((0..<150).filter { $0 == 0 || !$0.isMultiple(of: 5) })

        try Self.writePages(test, one, two, expecting: all) { tx in try Self.set(0..<150, tx) }
        // The middle page's rows, removed and added back.
        try Self.writePages(test, one, two, expecting: Self.keys(Array(0..<50) + Array(100..<150))) { tx in
            for index in 50..<100 { try tx.removeObject(forKey: "key\(index)", inCollection: nil) }
        }
        try Self.writePages(test, one, two, expecting: all) { tx in try Self.set(50..<100, tx) }
        // Every fifth row from key5 on, one at a time, from every page.
        try Self.writePages(test, one, two, expecting: everyFifthGone) { tx in
            for index in stride(from: 5, to: 150, by: 5) {
                try tx.removeObject(forKey: "key\(index)", inCollection: nil)
            }
        }
        try Self.writePages(test, one, two, expecting: []) { tx in try tx.removeAllObjectsInAllCollections() }
        try Self.writePages(test, one, two, expecting: all) { tx in try Self.set(0..<150, tx) }
        // The same rows in one call.
        try Self.writePages(test, one, two, expecting: everyFifthGone) { tx in
            try tx.removeObjects(forKeys: Self.keys(stride(from: 5, to: 150, by: 5)), inCollection: nil)
        }
        try Self.writePages(test, one, two, expecting: []) { tx in try tx.removeAllObjectsInAllCollections() }
    }

    /// The end of YapDatabase's testMultiPage: rows added to a full page while the page beside
    /// it empties, so rows shift from one page to the other, at the front and at the back.
    @Test(arguments: [true, false])
    func rowsShiftBetweenNeighbouringPages(persistent: Bool) throws {
        let test = try TestDatabase()
        let one = try test.connection()
        let two = try test.connection()
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")

        try Self.writePages(test, one, two, expecting: Self.keys(Array(0..<50) + Array(100..<150))) { tx in
            try tx.removeAllObjectsInAllCollections()
            try Self.set(Array(0..<50) + Array(100..<150), tx)
        }
        try Self.writePages(test, one, two, expecting: Self.keys(Array(0..<40) + Array(50..<60) + Array(100..<150))) {
            tx in
            try Self.set(50..<60, tx)
            for index in 40..<50 { try tx.removeObject(forKey: "key\(index)", inCollection: nil) }
        }

        try Self.writePages(test, one, two, expecting: Self.keys(50..<150)) { tx in
            try tx.removeAllObjectsInAllCollections()
            try Self.set(50..<150, tx)
        }
        try Self.writePages(test, one, two, expecting: Self.keys(Array(0..<10) + Array(50..<100) + Array(110..<150))) {
            tx in
            try Self.set(0..<10, tx)
            for index in 100..<110 { try tx.removeObject(forKey: "key\(index)", inCollection: nil) }
        }
    }

    /// Rows written before registration are in the view on connections opened before it too;
    /// `skipInitialViewPopulation` leaves the view empty on all of them.
    @Test(arguments: [true, false], [false, true])
    func rowsWrittenBeforeRegistrationReachEveryConnection(persistent: Bool, skip: Bool) throws {
        let test = try TestDatabase()
        let one = try test.connection()
        let two = try test.connection()
        try one.readWrite { tx in try Self.set((0..<150).reversed(), tx) }
        try two.read { tx throws in #expect(tx.ext("order") == nil) }
        let view = Self.ordered(persistent: persistent)
        let registered = AutoView(
            grouping: view.grouping, sorting: view.sorting, versionTag: view.versionTag,
            skipInitialViewPopulation: skip, isPersistent: persistent)
        try test.database.register(registered, withName: "order")
        for connection in [one, two, try test.connection()] {
            try connection.read { tx in try Self.expectOrder(tx, skip ? [] : Self.keys(0..<150)) }
        }
        // Later writes are placed either way.
        try one.readWrite { tx in try Self.set([1_000], tx) }
        for connection in [one, two] {
            try connection.read { tx in try Self.expectOrder(tx, (skip ? [] : Self.keys(0..<150)) + ["key1000"]) }
        }
    }
}
