import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// YapDatabase's `TestYapDatabaseView` ported: one group of numeric strings written and read
/// through two connections, each step checked in the writing transaction and on every
/// connection, persistent and in memory.
@Suite struct AutoViewBehaviourTests {
    /// Every key except `keyX` in the group "", ordered by their string objects compared
    /// numerically ("object2" before "object10"), as YapDatabase's test view.
    static func ordered(persistent: Bool) -> AutoView {
        AutoView(
            grouping: .key { row, group in group = row.key == "keyX" ? nil : "" },
            sorting: .object(String.self) { _, left, right in left.object.compare(right.object, options: .numeric) },
            versionTag: "1", isPersistent: persistent)
    }

    static func key(_ key: String) -> CollectionKey { CollectionKey(collection: "", key: key) }

    static func view(_ tx: ReadTransaction) throws -> AutoViewTransaction {
        try tx.extension("order", as: AutoViewTransaction.self)
    }

    /// Checks every way of reading the view against `expected`, the keys of group "" in order
    /// (`keyX` never in the view).
    static func expectOrder(
        _ tx: ReadTransaction, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let view = try view(tx)
        #expect(try view.numberOfGroups() == (expected.isEmpty ? 0 : 1), sourceLocation: sourceLocation)
        #expect(try view.groups() == (expected.isEmpty ? [] : [""]), sourceLocation: sourceLocation)
        #expect(try view.numberOfItems(inGroup: "") == expected.count, sourceLocation: sourceLocation)
        #expect(try view.numberOfItemsInAllGroups() == expected.count, sourceLocation: sourceLocation)
        for (index, key) in expected.enumerated() {
            #expect(try view.key(at: index, inGroup: "") == Self.key(key), sourceLocation: sourceLocation)
            #expect(try view.group(forKey: key, inCollection: nil) == "", sourceLocation: sourceLocation)
            let place = try view.index(forKey: key, inCollection: nil)
            #expect(place?.group == "" && place?.index == index, "\(key)", sourceLocation: sourceLocation)
        }
        #expect(try view.key(at: expected.count, inGroup: "") == nil, sourceLocation: sourceLocation)
        #expect(try view.group(forKey: "keyX", inCollection: nil) == nil, sourceLocation: sourceLocation)
        #expect(try view.index(forKey: "keyX", inCollection: nil) == nil, sourceLocation: sourceLocation)
    }

    /// Runs `body` on `writer`, then checks the view shows `expected` inside that transaction
    /// and afterwards on each of `connections`.
    static func write(
        _ writer: Connection, checking connections: [Connection], expecting expected: [String],
        sourceLocation: SourceLocation = #_sourceLocation, _ body: (ReadWriteTransaction) throws -> Void
    ) throws {
        try writer.readWrite { tx in
            try body(tx)
            try expectOrder(tx, expected, sourceLocation: sourceLocation)
        }
        for connection in connections {
            try connection.read { tx in try expectOrder(tx, expected, sourceLocation: sourceLocation) }
        }
    }

    /// The records a long-lived reader gets for the commits since its last snapshot.
    static func records(_ reader: Connection) throws -> [ViewChangeRecord] {
        try reader.beginLongLivedReadTransaction().flatMap { $0.viewChangeRecords(inView: "order") }
    }

    @Test(arguments: [true, false])
    func numericStringsStaySortedThroughEveryWriteOnBothConnections(persistent: Bool) throws {
        let test = try TestDatabase()
        let one = try test.connection()
        let two = try test.connection()
        let observer = try test.connection()
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")
        let both = [one, two]
        try one.read { tx throws in #expect(try Self.view(tx).versionTag == "1") }
        _ = try observer.beginLongLivedReadTransaction()

        try one.readWrite { tx in
            #expect(tx.ext("non-existent-view") == nil)
            #expect(tx.ext("order") is AutoViewTransaction)
            try Self.expectOrder(tx, [])
            #expect(try Self.view(tx).group(forKey: "key0", inCollection: nil) == nil)
        }
        try Self.write(two, checking: both, expecting: ["key0"]) { tx in
            try tx.setObject("object0", forKey: "key0", inCollection: nil)
        }
        for connection in both {
            try connection.read { tx throws in
                // Without a codec for the collection an untyped read gives the stored JSON.
                let object = try Self.view(tx).object(at: 0, inGroup: "") as? EncodedValue
                #expect(try object?.decode(as: String.self) == "object0")
            }
        }

        try Self.write(two, checking: both, expecting: ["key0", "key1", "key2", "key3", "key4"]) { tx in
            for index in 1...4 { try tx.setObject("object\(index)", forKey: "key\(index)", inCollection: nil) }
            try tx.setObject("objectX", forKey: "keyX", inCollection: nil)
        }
        _ = try Self.records(observer)

        // The sorting reads only objects and the grouping only keys: the row stays, reported updated.
        try Self.write(two, checking: both, expecting: ["key0", "key1", "key2", "key3", "key4"]) { tx in
            try tx.replaceMetadata("some-metadata", forKey: "key0", inCollection: nil)
        }
        #expect(try Self.records(observer) == [.updateRow(Self.key("key0"), group: "", index: 0, parts: .metadata)])

        // "object5" sorts last: key1 moves from index 1 to index 4.
        try one.read { tx throws in #expect(try Self.view(tx).key(at: 1, inGroup: "") == Self.key("key1")) }
        try Self.write(one, checking: both, expecting: ["key0", "key2", "key3", "key4", "key1"]) { tx in
            try tx.setObject("object5", forKey: "key1", inCollection: nil)
        }
        #expect(
            try Self.records(observer) == [
                .deleteRow(Self.key("key1"), group: "", index: 1), .insertRow(Self.key("key1"), group: "", index: 4),
            ])

        try Self.write(one, checking: both, expecting: ["key0", "key2", "key3", "key4"]) { tx in
            try tx.removeObject(forKey: "key1", inCollection: nil)
        }
        try Self.write(one, checking: both, expecting: ["key0", "key4"]) { tx in
            try tx.removeObjects(forKeys: ["key2", "key3"], inCollection: nil)
        }
        try Self.write(one, checking: both, expecting: []) { tx in try tx.removeAllObjectsInAllCollections() }

        // Added back in another order, they come out sorted.
        try Self.write(one, checking: both, expecting: ["key0", "key1", "key2", "key3", "key4"]) { tx in
            for index in ["2", "1", "3", "X", "0", "4"] {
                try tx.setObject("object\(index)", forKey: "key\(index)", inCollection: nil)
            }
        }
        try Self.write(two, checking: both, expecting: ["key0", "key1"]) { tx in
            try tx.removeAllObjects(inCollection: nil)
            try tx.setObject("object1", forKey: "key1", inCollection: nil)
            try tx.setObject("object0", forKey: "key0", inCollection: nil)
        }
        // Setting rows the view holds again does not list them twice.
        try Self.write(two, checking: both, expecting: ["key0", "key1", "key2", "key3", "key4"]) { tx in
            for index in ["0", "1", "2", "3", "4", "X"] {
                try tx.setObject("object\(index)", forKey: "key\(index)", inCollection: nil)
            }
        }
        try test.connection().read { tx in try Self.expectOrder(tx, ["key0", "key1", "key2", "key3", "key4"]) }
    }

    /// YapDatabase's testInsertAndDelete: a row set and removed in one transaction leaves no trace.
    @Test(arguments: [true, false])
    func aRowSetAndRemovedInOneTransactionLeavesNoTrace(persistent: Bool) throws {
        let test = try TestDatabase()
        let one = try test.connection()
        let two = try test.connection()
        let reader = try test.connection()
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")
        _ = try reader.beginLongLivedReadTransaction()
        try Self.write(one, checking: [one, two], expecting: []) { tx in
            try tx.setObject("someValue", forKey: "someKey", inCollection: nil)
            try tx.removeObject(forKey: "someKey", inCollection: nil)
        }
        try Self.write(one, checking: [one, two], expecting: []) { tx in
            let keys = (0..<10).map { "key-\($0)" }
            for key in keys { try tx.setObject("object-\(key)", forKey: key, inCollection: nil) }
            try tx.removeObjects(forKeys: keys, inCollection: nil)
        }
        // What a reader gets over both commits cancels out.
        var mappings = ViewMappings(groups: [""], view: "order")
        mappings.update(groupCounts: [:])
        let changes = ViewChanges.advance(&mappings, groupCounts: [:], records: try Self.records(reader))
        #expect(changes.isEmpty)
    }

    /// YapDatabase's testDoubleDelete: removing a row twice, or after it left the view, counts
    /// once, in the writing transaction and on both connections.
    @Test(arguments: [true, false])
    func removingTwiceOrAfterLeavingTheViewCountsOnce(persistent: Bool) throws {
        let test = try TestDatabase()
        let one = try test.connection()
        let two = try test.connection()
        // Strings are in the view; anything else gets no group.
        let strings = AutoView(
            grouping: .object(String.self) { _, group in group = "" },
            sorting: .key { _, left, right in left.key.compare(right.key, options: .numeric) },
            versionTag: "1", isPersistent: persistent)
        try test.database.register(strings, withName: "order")
        let keys = (0..<10).map { "key-\($0)" }
        func step(expecting count: Int, _ body: (ReadWriteTransaction) throws -> Void) throws {
            let remaining = Array(keys.suffix(count))
            try one.readWrite { tx in
                try body(tx)
                #expect(try Self.view(tx).numberOfItems(inGroup: "") == count)
            }
            for connection in [one, two] {
                try connection.read { tx throws in
                    let view = try Self.view(tx)
                    #expect(try view.numberOfItems(inGroup: "") == count)
                    var listed: [String] = []
                    try view.enumerateKeys(inGroup: "") { row, _, _ in listed.append(row.key) }
                    #expect(listed == remaining)
                }
            }
        }
        try step(expecting: 10) { tx in
            for key in keys { try tx.setObject("someValue", forKey: key, inCollection: nil) }
        }
        try step(expecting: 9) { tx in
            try tx.removeObject(forKey: keys[0], inCollection: nil)
            try tx.removeObject(forKey: keys[0], inCollection: nil)
        }
        try step(expecting: 8) { tx in
            try tx.setObject(0, forKey: keys[1], inCollection: nil)  // out of the view
            try tx.removeObject(forKey: keys[1], inCollection: nil)  // then out of the database
        }
        try step(expecting: 5) { tx in
            try tx.setObject(0, forKey: keys[2], inCollection: nil)
            try tx.removeObjects(forKeys: [keys[2], keys[3], keys[4]], inCollection: nil)
        }
        try step(expecting: 0) { tx in
            try tx.removeObject(forKey: keys[5], inCollection: nil)
            try tx.removeObjects(forKeys: keys, inCollection: nil)
        }
    }
}
