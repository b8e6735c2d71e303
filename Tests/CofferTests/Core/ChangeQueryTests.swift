import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The connection's questions about changesets (YapDatabase's `…InNotifications:` helpers),
/// asked of changesets from real commits.
@Suite struct ChangeQueryTests {
    /// Four commits, as the changesets a long-lived reader collected.
    ///
    /// 1. insert a/k1 (with metadata), a/k2, b/x, c/y, "" /d;
    /// 2. replace a/k1's metadata, touch a/k2's object, remove b/x;
    /// 3. clear collection c;
    /// 4. remove everything.
    private func changesets() throws -> (Connection, [Changeset]) {
        let test = try TestDatabase()
        let reader = try test.connection()
        let writer = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "k1", inCollection: "a", withMetadata: "m")
            try tx.setObject(2, forKey: "k2", inCollection: "a")
            try tx.setObject(3, forKey: "x", inCollection: "b")
            try tx.setObject(4, forKey: "y", inCollection: "c")
            try tx.setObject(5, forKey: "d", inCollection: nil)
        }
        try writer.readWrite { tx in
            try tx.replaceMetadata("m2", forKey: "k1", inCollection: "a")
            try tx.touchObject(forKey: "k2", inCollection: "a")
            try tx.removeObject(forKey: "x", inCollection: "b")
        }
        try writer.readWrite { tx in try tx.removeAllObjects(inCollection: "c") }
        try writer.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        let all = try reader.beginLongLivedReadTransaction()
        #expect(all.map(\.snapshot) == [1, 2, 3, 4])
        return (reader, all)
    }

    @Test func perKeyQueries() throws {
        let (conn, all) = try changesets()
        let second = [all[1]]
        #expect(conn.hasChange(forKey: "k1", inCollection: "a", in: second))
        #expect(!conn.hasObjectChange(forKey: "k1", inCollection: "a", in: second))
        #expect(conn.hasMetadataChange(forKey: "k1", inCollection: "a", in: second))
        #expect(conn.hasChange(forKey: "k2", inCollection: "a", in: second))
        #expect(conn.hasObjectChange(forKey: "k2", inCollection: "a", in: second))
        #expect(!conn.hasMetadataChange(forKey: "k2", inCollection: "a", in: second))
        // A removal is a change of object and metadata.
        #expect(conn.hasChange(forKey: "x", inCollection: "b", in: second))
        #expect(conn.hasObjectChange(forKey: "x", inCollection: "b", in: second))
        #expect(conn.hasMetadataChange(forKey: "x", inCollection: "b", in: second))
        // Same key, other collection; other key, same collection.
        #expect(!conn.hasChange(forKey: "k1", inCollection: "b", in: second))
        #expect(!conn.hasChange(forKey: "k3", inCollection: "a", in: second))
        // The nil collection is "".
        #expect(conn.hasChange(forKey: "d", inCollection: nil, in: [all[0]]))
        #expect(conn.hasChange(forKey: "d", inCollection: "", in: [all[0]]))
        #expect(!conn.hasChange(forKey: "d", inCollection: nil, in: second))
        // No changesets, no changes.
        #expect(!conn.hasChange(forKey: "k1", inCollection: "a", in: []))
    }

    @Test func clearedCollectionsCountAsChangesOfEveryKey() throws {
        let (conn, all) = try changesets()
        let third = [all[2]]
        #expect(conn.didClearCollection("c", in: third))
        #expect(!conn.didClearCollection("a", in: third))
        #expect(!conn.didClearAllCollections(in: third))
        #expect(conn.hasChange(forKey: "y", inCollection: "c", in: third))
        #expect(conn.hasChange(forKey: "never-existed", inCollection: "c", in: third))
        #expect(conn.hasObjectChange(forKey: "y", inCollection: "c", in: third))
        #expect(conn.hasMetadataChange(forKey: "y", inCollection: "c", in: third))
        #expect(!conn.hasChange(forKey: "k1", inCollection: "a", in: third))

        let fourth = [all[3]]
        #expect(conn.didClearAllCollections(in: fourth))
        #expect(conn.didClearCollection("a", in: fourth))
        #expect(conn.didClearCollection(nil, in: fourth))
        #expect(conn.didClearCollection("anything", in: fourth))
        #expect(conn.hasChange(forKey: "k1", inCollection: "a", in: fourth))
        #expect(conn.hasChange(forCollection: "zzz", in: fourth))
        #expect(conn.didClearAllCollections(in: all))
        #expect(!conn.didClearAllCollections(in: Array(all.prefix(3))))
    }

    @Test func perCollectionQueries() throws {
        let (conn, all) = try changesets()
        let second = [all[1]]
        #expect(conn.hasChange(forCollection: "a", in: second))
        #expect(conn.hasChange(forCollection: "b", in: second))
        #expect(!conn.hasChange(forCollection: "c", in: second))
        #expect(!conn.hasChange(forCollection: nil, in: second))
        #expect(conn.hasChange(forCollection: nil, in: [all[0]]))
        #expect(conn.hasObjectChange(forCollection: "a", in: second))
        #expect(conn.hasMetadataChange(forCollection: "a", in: second))
        #expect(conn.hasObjectChange(forCollection: "b", in: second))
        #expect(conn.hasMetadataChange(forCollection: "b", in: second))
        #expect(conn.hasChange(forCollection: "c", in: [all[2]]))
        #expect(conn.hasObjectChange(forCollection: "c", in: [all[2]]))
        #expect(conn.hasMetadataChange(forCollection: "c", in: [all[2]]))
        #expect(!conn.hasChange(forCollection: "a", in: [all[2]]))
    }

    @Test func anyKeyQueries() throws {
        let (conn, all) = try changesets()
        let second = [all[1]]
        #expect(conn.hasChange(forAnyKeys: ["nope", "k1"], inCollection: "a", in: second))
        #expect(!conn.hasChange(forAnyKeys: ["nope", "k3"], inCollection: "a", in: second))
        #expect(!conn.hasChange(forAnyKeys: [String](), inCollection: "a", in: second))
        #expect(conn.hasObjectChange(forAnyKeys: ["k1", "k2"], inCollection: "a", in: second))
        #expect(!conn.hasObjectChange(forAnyKeys: ["k1"], inCollection: "a", in: second))
        #expect(conn.hasMetadataChange(forAnyKeys: Set(["k1"]), inCollection: "a", in: second))
        #expect(!conn.hasMetadataChange(forAnyKeys: ["k2"], inCollection: "a", in: second))
        #expect(conn.hasChange(forAnyKeys: ["y"], inCollection: "c", in: [all[2]]))
    }

    @Test func enumerateChangedKeys() throws {
        let (conn, all) = try changesets()
        var keys: [String] = []
        conn.enumerateChangedKeys(inCollection: "a", in: Array(all.prefix(2))) { key, _ in keys.append(key) }
        #expect(keys.sorted() == ["k1", "k2"])  // each once, though both commits touched them

        var removed: [String] = []
        conn.enumerateChangedKeys(inCollection: "b", in: all) { key, _ in removed.append(key) }
        #expect(removed == ["x"])

        // Keys of a cleared collection are not listed: didClearCollection says so instead.
        var cleared: [String] = []
        conn.enumerateChangedKeys(inCollection: "c", in: [all[2]]) { key, _ in cleared.append(key) }
        #expect(cleared.isEmpty)

        var defaultKeys: [String] = []
        conn.enumerateChangedKeys(inCollection: nil, in: all) { key, _ in defaultKeys.append(key) }
        #expect(defaultKeys == ["d"])

        var stopped = 0
        conn.enumerateChangedKeys(inCollection: "a", in: all) { _, stop in
            stopped += 1
            stop = true
        }
        #expect(stopped == 1)

        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try conn.enumerateChangedKeys(inCollection: "a", in: all) { _, _ in throw Failure() }
        }
    }

    @Test func enumerateChangedCollectionKeys() throws {
        let (conn, all) = try changesets()
        var keys: [CollectionKey] = []
        conn.enumerateChangedCollectionKeys(in: all) { key, _ in keys.append(key) }
        let expected: [CollectionKey] = [
            .init(collection: "a", key: "k1"), .init(collection: "a", key: "k2"), .init(collection: "b", key: "x"),
            .init(collection: "c", key: "y"), .init(collection: "", key: "d"),
        ]
        #expect(keys.count == expected.count)
        #expect(Set(keys) == Set(expected))

        var second: [CollectionKey] = []
        conn.enumerateChangedCollectionKeys(in: [all[1]]) { key, _ in second.append(key) }
        #expect(
            Set(second) == [
                .init(collection: "a", key: "k1"), .init(collection: "a", key: "k2"), .init(collection: "b", key: "x"),
            ])

        var count = 0
        conn.enumerateChangedCollectionKeys(in: all) { _, stop in
            count += 1
            stop = count == 2
        }
        #expect(count == 2)
    }
}
