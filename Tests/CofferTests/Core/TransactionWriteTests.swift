import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Every write API of a read-write transaction, checked from a second connection (so the values
/// come from the encrypted file, not from the writer's cache).
@Suite struct TransactionWriteTests {
    private func setUp(_ kind: TestKeyKind = .raw) throws -> (TestDatabase, writer: Connection, reader: Connection) {
        let test = try TestDatabase(kind)
        test.database.registerCodable(Note.self, metadata: Tag.self, forCollection: "notes")
        return (test, try test.connection(), try test.connection())
    }

    private func note(_ index: Int) -> Note { Note(title: "t\(index)", body: "b\(index)") }

    @Test(arguments: TestKeyKind.allCases)
    func setObjectWithAndWithoutMetadata(kind: TestKeyKind) throws {
        let (test, writer, reader) = try setUp(kind)
        try writer.readWrite { tx throws in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes", withMetadata: Tag(label: "x", rank: 1))
            try tx.setObject(note(2), forKey: "b", inCollection: "notes")
            // Read-your-writes inside the transaction.
            #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(1))
            #expect(try tx.numberOfKeys(inCollection: "notes") == 2)
        }
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(1))
            #expect(try tx.metadata(forKey: "a", inCollection: "notes", as: Tag.self) == Tag(label: "x", rank: 1))
            #expect(try tx.object(forKey: "b", inCollection: "notes", as: Note.self) == note(2))
            #expect(try tx.metadata(forKey: "b", inCollection: "notes") == nil)
        }
        // Setting again replaces object and metadata; without metadata the old metadata goes.
        try writer.readWrite { tx throws in
            try tx.setObject(note(3), forKey: "a", inCollection: "notes")
            try tx.setObject(note(4), forKey: "b", inCollection: "notes", withMetadata: Tag(label: "y", rank: 2))
        }
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(3))
            #expect(try tx.metadata(forKey: "a", inCollection: "notes") == nil)
            #expect(try tx.metadata(forKey: "b", inCollection: "notes", as: Tag.self) == Tag(label: "y", rank: 2))
            #expect(try tx.numberOfKeys(inCollection: "notes") == 2)
        }
        #expect(test.database.snapshot == 2)
    }

    @Test func setNilRemoves() throws {
        let (_, writer, reader) = try setUp()
        try writer.readWrite { tx in try tx.setObject(note(1), forKey: "a", inCollection: "notes") }
        try writer.readWrite { tx in try tx.setObject(nil, forKey: "a", inCollection: "notes") }
        #expect(try reader.read { tx in try tx.hasObject(forKey: "a", inCollection: "notes") } == false)
    }

    @Test func preSerializedSetStoresTheGivenBytes() throws {
        let (_, writer, reader) = try setUp()
        let objectBytes = Data(#"{"body":"pre","title":"serialized"}"#.utf8)
        let metadataBytes = Data(#"{"label":"m","rank":7}"#.utf8)
        try writer.readWrite { tx in
            try tx.setObject(
                Note(title: "serialized", body: "pre"), forKey: "p", inCollection: "notes",
                withMetadata: Tag(label: "m", rank: 7), serializedObject: objectBytes, serializedMetadata: metadataBytes
            )
        }
        try reader.read { tx throws in
            #expect(try tx.serializedObject(forKey: "p", inCollection: "notes") == objectBytes)
            #expect(try tx.serializedMetadata(forKey: "p", inCollection: "notes") == metadataBytes)
            #expect(
                try tx.object(forKey: "p", inCollection: "notes", as: Note.self)
                    == Note(title: "serialized", body: "pre"))
            #expect(try tx.metadata(forKey: "p", inCollection: "notes", as: Tag.self) == Tag(label: "m", rank: 7))
        }
    }

    @Test func replaceObjectKeepsMetadata() throws {
        let (_, writer, reader) = try setUp()
        try writer.readWrite { tx in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes", withMetadata: Tag(label: "keep", rank: 1))
        }
        // Warm the reader's caches so the replace has something to invalidate.
        _ = try reader.read { tx in try tx.objectAndMetadata(forKey: "a", inCollection: "notes") }
        try writer.readWrite { tx throws in
            try tx.replaceObject(note(2), forKey: "a", inCollection: "notes")
            try tx.replaceObject(note(3), forKey: "missing", inCollection: "notes")
            #expect(try !tx.hasObject(forKey: "missing", inCollection: "notes"))
        }
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(2))
            #expect(try tx.metadata(forKey: "a", inCollection: "notes", as: Tag.self) == Tag(label: "keep", rank: 1))
            #expect(try !tx.hasObject(forKey: "missing", inCollection: "notes"))
        }
        try writer.readWrite { tx in try tx.replaceObject(nil, forKey: "a", inCollection: "notes") }
        #expect(try reader.read { tx in try tx.hasObject(forKey: "a", inCollection: "notes") } == false)
    }

    @Test func replaceMetadataKeepsObjectAndNilClears() throws {
        let (_, writer, reader) = try setUp()
        try writer.readWrite { tx in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes", withMetadata: Tag(label: "old", rank: 1))
        }
        _ = try reader.read { tx in try tx.objectAndMetadata(forKey: "a", inCollection: "notes") }
        try writer.readWrite { tx in
            try tx.replaceMetadata(Tag(label: "new", rank: 2), forKey: "a", inCollection: "notes")
            try tx.replaceMetadata(Tag(label: "ghost", rank: 0), forKey: "missing", inCollection: "notes")
        }
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(1))
            #expect(try tx.metadata(forKey: "a", inCollection: "notes", as: Tag.self) == Tag(label: "new", rank: 2))
            #expect(try !tx.hasObject(forKey: "missing", inCollection: "notes"))
        }
        try writer.readWrite { tx in try tx.replaceMetadata(nil, forKey: "a", inCollection: "notes") }
        try reader.read { tx throws in
            #expect(try tx.metadata(forKey: "a", inCollection: "notes") == nil)
            #expect(try tx.serializedMetadata(forKey: "a", inCollection: "notes") == nil)
            #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(1))
        }
    }

    @Test func touchesChangeNothingOnDiskButAreReported() throws {
        let (test, writer, reader) = try setUp()
        try writer.readWrite { tx in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes", withMetadata: Tag(label: "m", rank: 1))
            try tx.setObject(note(2), forKey: "b", inCollection: "notes")
            try tx.setObject(note(3), forKey: "c", inCollection: "notes")
        }
        let before = try reader.read { tx in
            try ["a", "b", "c"].map { try tx.serializedObjectAndMetadata(forKey: $0, inCollection: "notes")?.object }
        }
        let recorder = NotificationRecorder(test.database)
        try writer.readWrite { tx in
            try tx.touchObject(forKey: "a", inCollection: "notes")
            try tx.touchMetadata(forKey: "b", inCollection: "notes")
            try tx.touchRow(forKey: "c", inCollection: "notes")
            try tx.touchRow(forKey: "missing", inCollection: "notes")
        }
        #expect(test.database.snapshot == 2)
        let changeset = try #require(recorder.changeset(snapshot: 2))
        let ck = { CollectionKey(collection: "notes", key: $0) }
        #expect(changeset.objectChanges == [ck("a"), ck("c")])
        #expect(changeset.metadataChanges == [ck("b"), ck("c")])
        #expect(changeset.insertedKeys.isEmpty)
        #expect(changeset.removedKeys.isEmpty)
        let after = try reader.read { tx in
            try ["a", "b", "c"].map { try tx.serializedObjectAndMetadata(forKey: $0, inCollection: "notes")?.object }
        }
        #expect(before == after)
        try reader.read { tx throws in
            #expect(try tx.metadata(forKey: "a", inCollection: "notes", as: Tag.self) == Tag(label: "m", rank: 1))
            #expect(try !tx.hasObject(forKey: "missing", inCollection: "notes"))
        }
    }

    @Test func removeObjectAndRemoveMissing() throws {
        let (_, writer, reader) = try setUp()
        try writer.readWrite { tx in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes")
            try tx.setObject(note(2), forKey: "b", inCollection: "notes")
        }
        try writer.readWrite { tx throws in
            try tx.removeObject(forKey: "a", inCollection: "notes")
            try tx.removeObject(forKey: "never", inCollection: "notes")
            #expect(try !tx.hasObject(forKey: "a", inCollection: "notes"))
            #expect(try tx.object(forKey: "a", inCollection: "notes") == nil)
        }
        try reader.read { tx throws in
            #expect(try tx.allKeys(inCollection: "notes") == ["b"])
        }
    }

    @Test(arguments: [3, 500, 501, 1234])
    func removeObjectsForKeysInBatches(count: Int) throws {
        let (test, writer, reader) = try setUp()
        try writer.readWrite { tx in
            for index in 0..<count {
                try tx.setObject(index, forKey: "k\(index)", inCollection: "many")
            }
            try tx.setObject(-1, forKey: "k0", inCollection: "other")
        }
        let recorder = NotificationRecorder(test.database)
        // Remove every other key, plus keys that do not exist.
        let doomed = stride(from: 0, to: count, by: 2).map { "k\($0)" } + (0..<50).map { "absent\($0)" }
        try writer.readWrite { tx in try tx.removeObjects(forKeys: doomed, inCollection: "many") }
        let remaining = try reader.read { tx in Set(try tx.allKeys(inCollection: "many")) }
        #expect(remaining == Set(stride(from: 1, to: count, by: 2).map { "k\($0)" }))
        #expect(try reader.read { tx in try tx.hasObject(forKey: "k0", inCollection: "other") })
        let removed = try #require(recorder.changeset(snapshot: 2)).removedKeys
        #expect(
            removed == Set(stride(from: 0, to: count, by: 2).map { CollectionKey(collection: "many", key: "k\($0)") }))
        try writer.readWrite { tx in try tx.removeObjects(forKeys: [], inCollection: "many") }
        #expect(test.database.snapshot == 2)
    }

    @Test func removeAllObjectsInCollection() throws {
        let (_, writer, reader) = try setUp()
        try writer.readWrite { tx in
            for index in 0..<10 { try tx.setObject(note(index), forKey: "n\(index)", inCollection: "notes") }
            try tx.setObject("keep", forKey: "n1", inCollection: "other")
        }
        try writer.readWrite { tx throws in
            try tx.removeAllObjects(inCollection: "notes")
            #expect(try tx.numberOfKeys(inCollection: "notes") == 0)
            // The collection can be written again in the same transaction.
            try tx.setObject(note(99), forKey: "fresh", inCollection: "notes")
        }
        try reader.read { tx throws in
            #expect(try tx.allKeys(inCollection: "notes") == ["fresh"])
            #expect(try tx.object(forKey: "n1", inCollection: "other", as: String.self) == "keep")
        }
    }

    @Test func removeAllObjectsInAllCollections() throws {
        let (test, writer, reader) = try setUp()
        try writer.readWrite { tx in
            for index in 0..<10 { try tx.setObject(index, forKey: "k\(index)", inCollection: "c\(index % 3)") }
        }
        _ = try reader.read { tx in try tx.object(forKey: "k1", inCollection: "c1") }
        let recorder = NotificationRecorder(test.database)
        try writer.readWrite { tx throws in
            try tx.removeAllObjectsInAllCollections()
            #expect(try tx.numberOfKeysInAllCollections() == 0)
        }
        try reader.read { tx throws in
            #expect(try tx.numberOfKeysInAllCollections() == 0)
            #expect(try tx.allCollections().isEmpty)
            #expect(try tx.object(forKey: "k1", inCollection: "c1") == nil)
        }
        #expect(recorder.changeset(snapshot: 2)?.allKeysRemoved == true)
        // Removing everything from an empty database changes nothing and commits nothing.
        try writer.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        try writer.readWrite { tx in try tx.removeAllObjects(inCollection: "c1") }
        #expect(test.database.snapshot == 2)
    }

    @Test func rollbackDiscardsEverything() throws {
        let (test, writer, reader) = try setUp()
        try writer.readWrite { tx in try tx.setObject(note(1), forKey: "a", inCollection: "notes") }
        let result = try writer.readWrite { tx throws -> String in
            try tx.setObject(note(2), forKey: "a", inCollection: "notes")
            try tx.setObject(note(3), forKey: "b", inCollection: "notes")
            tx.rollback()
            let error = try #require(throws: DatabaseError.self) {
                try tx.setObject(note(4), forKey: "c", inCollection: "notes")
            }
            #expect(error.code == .misuse)
            return "returned"
        }
        #expect(result == "returned")
        #expect(test.database.snapshot == 1)
        for connection in [writer, reader] {
            try connection.read { tx throws in
                #expect(try tx.object(forKey: "a", inCollection: "notes", as: Note.self) == note(1))
                #expect(try !tx.hasObject(forKey: "b", inCollection: "notes"))
            }
        }
    }

    @Test func throwingBlockRollsBack() throws {
        struct Abort: Error {}
        let (test, writer, reader) = try setUp()
        try writer.readWrite { tx in try tx.setObject(note(1), forKey: "a", inCollection: "notes") }
        let recorder = NotificationRecorder(test.database)
        #expect(throws: Abort.self) {
            try writer.readWrite { tx in
                try tx.setObject(note(2), forKey: "a", inCollection: "notes")
                try tx.removeAllObjectsInAllCollections()
                throw Abort()
            }
        }
        #expect(test.database.snapshot == 1)
        for connection in [writer, reader] {
            #expect(
                try connection.read { tx in try tx.object(forKey: "a", inCollection: "notes", as: Note.self) }
                    == note(1))
        }
        // The connection is usable afterwards, and the next commit is snapshot 2.
        try writer.readWrite { tx in try tx.setObject(note(5), forKey: "a", inCollection: "notes") }
        #expect(test.database.snapshot == 2)
        #expect(recorder.changeset(snapshot: 2) != nil)
        #expect(recorder.changesets(after: 1).map(\.snapshot) == [2])
    }

    @Test func serializationFailureOnWriteWritesNothing() throws {
        let (test, writer, reader) = try setUp()
        final class NotEncodable: Sendable {}
        try writer.readWrite { tx throws in
            let wrongType = try #require(throws: DatabaseError.self) {
                try tx.setObject("a string, not a Note", forKey: "a", inCollection: "notes")
            }
            #expect(wrongType.code == .serialization)
            #expect(wrongType.collection == "notes")
            #expect(wrongType.key == "a")
            let notEncodable = try #require(throws: DatabaseError.self) {
                try tx.setObject(NotEncodable(), forKey: "b", inCollection: "auto")
            }
            #expect(notEncodable.code == .serialization)
            let badMetadata = try #require(throws: DatabaseError.self) {
                try tx.setObject(note(1), forKey: "c", inCollection: "notes", withMetadata: 5)
            }
            #expect(badMetadata.code == .serialization)
        }
        #expect(test.database.snapshot == 0)
        #expect(try reader.read { tx in try tx.numberOfKeysInAllCollections() } == 0)
    }

    @Test func customNotificationObject() throws {
        let (test, writer, _) = try setUp()
        let recorder = NotificationRecorder(test.database)
        try writer.readWrite { tx in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes")
            tx.notificationCustomObject = "custom-1"
        }
        // A custom object alone is worth a notification, as in YapDatabase.
        try writer.readWrite { tx in tx.notificationCustomObject = ["only": 2] }
        #expect(recorder.wait(forCount: 2))
        #expect(recorder.changesets.map(\.snapshot) == [1, 2])
        #expect(recorder.changesets[0].customObject as? String == "custom-1")
        #expect(recorder.changesets[1].customObject as? [String: Int] == ["only": 2])
        #expect(recorder.changesets[1].objectChanges.isEmpty)
    }

    @Test func completionsRunAfterCommitInOrderAndNotAfterRollback() throws {
        let (_, writer, reader) = try setUp()
        let events = Locked<[String]>([])
        let seenByCompletion = Locked<Note?>(nil)
        let done = DispatchSemaphore(value: 0)
        let custom = DispatchQueue(label: "test.completion")
        try writer.readWrite { tx in
            try tx.setObject(note(1), forKey: "a", inCollection: "notes")
            tx.addCompletion { events.append("first") }
            tx.addCompletion { events.append("second") }
            tx.addCompletion(queue: custom) {
                // The commit is visible to every connection by the time completions run.
                let value = try? reader.read { tx in try tx.object(forKey: "a", inCollection: "notes", as: Note.self) }
                seenByCompletion.withLock { $0 = value ?? nil }
                done.signal()
            }
        }
        #expect(TestSupport.wait(done))
        #expect(seenByCompletion.value == note(1))

        let rolledBack = Locked(false)
        try writer.readWrite { tx in
            try tx.setObject(note(2), forKey: "b", inCollection: "notes")
            tx.addCompletion { rolledBack.withLock { $0 = true } }
            tx.rollback()
        }
        struct Abort: Error {}
        _ = try? writer.readWrite { tx in
            tx.addCompletion { rolledBack.withLock { $0 = true } }
            throw Abort()
        }
        // The default completion queue is serial: once a later completion ran, earlier ones would have too.
        let later = DispatchSemaphore(value: 0)
        try writer.readWrite { tx in
            try tx.setObject(note(3), forKey: "c", inCollection: "notes")
            tx.addCompletion {
                events.append("later"); later.signal()
            }
        }
        #expect(TestSupport.wait(later))
        #expect(rolledBack.value == false)
        #expect(events.value == ["first", "second", "later"])
    }

    @Test func completionsRunForAWriteThatChangedNothing() throws {
        let (_, writer, _) = try setUp()
        let done = DispatchSemaphore(value: 0)
        try writer.readWrite { tx in tx.addCompletion { done.signal() } }
        #expect(TestSupport.wait(done))
    }

    @Test func unusualKeysAndLargeValues() throws {
        let (_, writer, reader) = try setUp()
        let big = String(repeating: "x", count: 1 << 20)
        let keys = ["", " ", "ключ", "🔑", String(repeating: "k", count: 5000), "quote'\"", "semi;colon"]
        try writer.readWrite { tx in
            for key in keys { try tx.setObject(key, forKey: key, inCollection: "odd") }
            try tx.setObject(big, forKey: "big", inCollection: "🔑 collection")
        }
        try reader.read { tx throws in
            for key in keys {
                #expect(try tx.object(forKey: key, inCollection: "odd", as: String.self) == key)
            }
            #expect(try tx.object(forKey: "big", inCollection: "🔑 collection", as: String.self) == big)
            #expect(Set(try tx.allKeys(inCollection: "odd")) == Set(keys))
        }
    }

    @Test func keysWithEmbeddedNULAreDistinct() throws {
        let (_, writer, reader) = try setUp()
        try writer.readWrite { tx in
            try tx.setObject("short", forKey: "nul", inCollection: "odd")
            try tx.setObject("long", forKey: "nul\u{0}inside", inCollection: "odd")
            try tx.setObject("c", forKey: "k", inCollection: "col\u{0}lection")
        }
        try reader.read { tx throws in
            #expect(try tx.numberOfKeys(inCollection: "odd") == 2)
            #expect(try tx.object(forKey: "nul", inCollection: "odd", as: String.self) == "short")
            #expect(try tx.object(forKey: "nul\u{0}inside", inCollection: "odd", as: String.self) == "long")
            #expect(Set(try tx.allKeys(inCollection: "odd")) == ["nul", "nul\u{0}inside"])
            #expect(try tx.allCollections().contains("col\u{0}lection"))
            #expect(try tx.numberOfKeys(inCollection: "col") == 0)
        }
    }

    /// Upserts try UPDATE or INSERT first depending on the previous one; any mix of new and existing
    /// keys must store every value once and report exactly the new rows as inserted.
    @Test func interleavedInsertsAndUpdatesReportExactlyTheNewRows() throws {
        let (test, writer, reader) = try setUp()
        try writer.readWrite { tx in
            for index in 0..<5 { try tx.setObject(note(index), forKey: "old\(index)", inCollection: "notes") }
        }
        let recorder = NotificationRecorder(test.database)
        // Runs of updates and inserts in every order, including an update right after an insert of
        // the same key and a new key right after a run of updates.
        let script = ["old0", "old1", "new0", "new0", "old2", "new1", "new2", "old3", "old3", "new3", "old4"]
        try writer.readWrite { tx in
            for (index, key) in script.enumerated() {
                try tx.setObject(note(100 + index), forKey: key, inCollection: "notes")
            }
        }
        let changeset = try #require(recorder.changeset(snapshot: 2))
        let ck = { CollectionKey(collection: "notes", key: $0) }
        #expect(changeset.insertedKeys == [ck("new0"), ck("new1"), ck("new2"), ck("new3")])
        #expect(changeset.objectChanges == Set(script.map(ck)))
        var last: [String: Note] = [:]
        for (index, key) in script.enumerated() { last[key] = note(100 + index) }
        try reader.read { tx throws in
            #expect(try tx.numberOfKeys(inCollection: "notes") == 9)
            for (key, value) in last {
                #expect(try tx.object(forKey: key, inCollection: "notes", as: Note.self) == value, "\(key)")
            }
        }
    }
}
