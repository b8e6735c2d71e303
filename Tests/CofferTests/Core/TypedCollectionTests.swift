import CofferTestSupport
import Crypto
import Foundation
import Testing

@testable import Coffer

/// `TypedCollection` / `CollectionHandle`: the string-keyed API with the collection's types.
@Suite struct TypedCollectionTests {
    struct Note: Codable, Sendable, Equatable {
        var title: String
    }

    struct NoteInfo: Codable, Sendable, Equatable {
        var pinned: Bool
    }

    struct Other: Codable, Sendable {
        var count: Int
    }

    static let notes = CollectionHandle<Note>("notes")
    static let annotated = TypedCollection<Note, NoteInfo>("annotated")

    @Test(arguments: [false, true])
    func readsAndWritesTheHandlesTypesOnEveryConnection(registered: Bool) throws {
        let test = try TestDatabase()
        if registered { try test.database.register(Self.annotated) }
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.set(Note(title: "a"), forKey: "a", in: Self.annotated, metadata: NoteInfo(pinned: true))
            try tx.set(Note(title: "b"), forKey: "b", in: Self.annotated)
        }
        for connection in [writer, try test.connection()] {
            try connection.read { tx throws in
                #expect(try tx.object(forKey: "a", in: Self.annotated) == Note(title: "a"))
                #expect(try tx.metadata(forKey: "a", in: Self.annotated) == NoteInfo(pinned: true))
                #expect(try tx.metadata(forKey: "b", in: Self.annotated) == nil)
                #expect(try tx.object(forKey: "missing", in: Self.annotated) == nil)
                #expect(try tx.hasObject(forKey: "b", in: Self.annotated))
                #expect(try tx.numberOfKeys(in: Self.annotated) == 2)
                #expect(try Set(tx.allKeys(in: Self.annotated)) == ["a", "b"])
                let row = try #require(try tx.objectAndMetadata(forKey: "a", in: Self.annotated))
                #expect(row.object == Note(title: "a") && row.metadata == NoteInfo(pinned: true))
                var seen: [String: Note] = [:]
                try tx.enumerateKeysAndObjects(in: Self.annotated) { key, note, _ in seen[key] = note }
                #expect(seen == ["a": Note(title: "a"), "b": Note(title: "b")])
                var metadata: [String: NoteInfo?] = [:]
                try tx.enumerateKeysAndMetadata(in: Self.annotated) { key, info, _ in metadata[key] = info }
                #expect(
                    metadata.count == 2 && metadata["a"] == .some(NoteInfo(pinned: true)) && metadata["b"] == .some(nil)
                )
                var rows = 0
                try tx.enumerateRows(in: Self.annotated) { key, note, info, _ in
                    rows += 1
                    #expect(note.title == key)
                    #expect((info != nil) == (key == "a"))
                }
                #expect(rows == 2)
                #expect(
                    try tx.objects(forKeys: ["b", "x", "a"], in: Self.annotated) == [
                        Note(title: "b"), nil, Note(title: "a"),
                    ])
            }
        }
    }

    @Test func replaceRemoveAndTouchGoThroughTheHandle() throws {
        let test = try TestDatabase()
        try test.database.register(Self.annotated)
        let connection = try test.connection()
        try connection.readWrite { tx in
            try tx.set(Note(title: "a"), forKey: "a", in: Self.annotated, metadata: NoteInfo(pinned: false))
            try tx.replace(Note(title: "A"), forKey: "a", in: Self.annotated)
            try tx.replaceMetadata(NoteInfo(pinned: true), forKey: "a", in: Self.annotated)
            try tx.replace(Note(title: "nobody"), forKey: "absent", in: Self.annotated)
            try tx.touchRow(forKey: "a", in: Self.annotated)
        }
        try connection.read { tx throws in
            #expect(try tx.object(forKey: "a", in: Self.annotated) == Note(title: "A"))
            #expect(try tx.metadata(forKey: "a", in: Self.annotated) == NoteInfo(pinned: true))
            #expect(try !tx.hasObject(forKey: "absent", in: Self.annotated))
        }
        try connection.readWrite { tx in
            try tx.replaceMetadata(nil, forKey: "a", in: Self.annotated)
            try tx.set(Note(title: "b"), forKey: "b", in: Self.annotated)
            try tx.set(Note(title: "c"), forKey: "c", in: Self.annotated)
            try tx.removeObject(forKey: "b", in: Self.annotated)
        }
        try connection.read { tx throws in
            #expect(try tx.metadata(forKey: "a", in: Self.annotated) == nil)
            #expect(try tx.allKeys(in: Self.annotated).sorted() == ["a", "c"])
        }
        try connection.readWrite { tx in try tx.removeAllObjects(in: Self.annotated) }
        #expect(try connection.read { tx in try tx.numberOfKeys(in: Self.annotated) } == 0)
    }

    @Test func anUnregisteredHandleSharesTheDefaultCodecWithTheStringAPI() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        try connection.readWrite { tx in
            try tx.set(Note(title: "typed"), forKey: "t", in: Self.notes)
            try tx.setObject(Note(title: "untyped"), forKey: "u", inCollection: "notes")
        }
        try test.connection().read { tx throws in
            #expect(try tx.object(forKey: "u", in: Self.notes) == Note(title: "untyped"))
            #expect(try tx.object(forKey: "t", inCollection: "notes", as: Note.self) == Note(title: "typed"))
            #expect(try tx.object(forKey: "t", inCollection: "notes") is EncodedValue)
        }
    }

    @Test func aHandleForAnotherTypeFailsOnFirstUseEvenInAnEmptyCollection() throws {
        let test = try TestDatabase()
        test.database.registerCodable(Other.self, forCollection: "notes")
        let connection = try test.connection()
        try connection.read { tx in
            let error = #expect(throws: DatabaseError.self) { try tx.object(forKey: "n", in: Self.notes) }
            #expect(error?.code == .typeMismatch)
            #expect(error?.collection == "notes")
            #expect(error?.message.contains("Other") == true && error?.message.contains("Note") == true)
            #expect(throws: DatabaseError.self) {
                try tx.enumerateKeysAndObjects(in: Self.notes) { _, _, _ in }
            }
        }
        try connection.readWrite { tx in
            let error = #expect(throws: DatabaseError.self) {
                try tx.set(Note(title: "x"), forKey: "n", in: Self.notes)
            }
            #expect(error?.code == .typeMismatch)
        }
        #expect(try connection.read { tx in try tx.numberOfKeys(inCollection: "notes") } == 0)
        let registration = #expect(throws: DatabaseError.self) { try test.database.register(Self.notes) }
        #expect(registration?.code == .typeMismatch)
        #expect(
            test.database.registry.snapshot().registry.config(for: "notes").objectChain.codec.valueType?.name
                .hasSuffix("Other") == true)
    }

    @Test func aMetadataTypeMismatchIsCaughtToo() throws {
        let test = try TestDatabase()
        test.database.registerCodable(Note.self, metadata: Other.self, forCollection: "annotated")
        try test.connection().read { tx in
            let error = #expect(throws: DatabaseError.self) { try tx.metadata(forKey: "a", in: Self.annotated) }
            #expect(error?.code == .typeMismatch)
            #expect(error?.message.contains("metadata") == true)
        }
        // A handle without a metadata type does not care what the metadata is.
        #expect(
            try test.connection().read { tx in try tx.object(forKey: "a", in: CollectionHandle<Note>("annotated")) }
                == nil)
    }

    @Test func registeringTheSameHandleTwiceIsFine() throws {
        let test = try TestDatabase()
        try test.database.register(Self.notes)
        try test.database.register(Self.notes)
    }

    @Test func registeredStagesEncryptTheRows() throws {
        let test = try TestDatabase()
        let keyring = try Keyring(key: SymmetricKey(size: .bits256), id: 1)
        try test.database.register(Self.annotated, stages: [.zlib(), .aesGCM(keyring)])
        let connection = try test.connection()
        try connection.readWrite { tx in
            try tx.set(
                Note(title: "secret title"), forKey: "a", in: Self.annotated, metadata: NoteInfo(pinned: true))
        }
        try test.connection().read { tx throws in
            let blob = try #require(try tx.serializedObject(forKey: "a", inCollection: "annotated"))
            #expect(blob.range(of: Data("secret".utf8)) == nil)
            let metadata = try #require(try tx.serializedMetadata(forKey: "a", inCollection: "annotated"))
            #expect(metadata.range(of: Data("pinned".utf8)) == nil)
            #expect(try tx.object(forKey: "a", in: Self.annotated) == Note(title: "secret title"))
        }
    }

    @Test func aCollectionHandleIgnoresUntypedMetadata() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        try connection.readWrite { tx in
            try tx.setObject(Note(title: "n"), forKey: "n", inCollection: "notes", withMetadata: Date())
        }
        try connection.read { tx throws in
            #expect(try tx.metadata(forKey: "n", in: Self.notes) == nil)
            try tx.enumerateRows(in: Self.notes) { _, note, metadata, _ in
                #expect(note == Note(title: "n"))
                #expect(metadata == nil)
            }
            #expect(try tx.metadata(forKey: "n", inCollection: "notes") != nil)
        }
    }

    @Test func aChangesetAnswersForATypedCollection() {
        let n1 = CollectionKey(collection: "notes", key: "n1")
        let objectOnly = Changeset(objectChanges: [n1])
        #expect(objectOnly.hasChange(forKey: "n1", in: Self.notes))
        #expect(objectOnly.hasObjectChange(forKey: "n1", in: Self.notes))
        #expect(!objectOnly.hasMetadataChange(forKey: "n1", in: Self.notes))
        #expect(!objectOnly.hasChange(forKey: "n2", in: Self.notes))
        #expect(objectOnly.hasChange(in: Self.notes))
        #expect(!objectOnly.hasChange(in: Self.annotated))
        let metadataOnly = Changeset(metadataChanges: [n1])
        #expect(metadataOnly.hasMetadataChange(forKey: "n1", in: Self.notes))
        #expect(!metadataOnly.hasObjectChange(forKey: "n1", in: Self.notes))
        let removed = Changeset(removedKeys: [n1])
        #expect(
            removed.hasObjectChange(forKey: "n1", in: Self.notes)
                && removed.hasMetadataChange(forKey: "n1", in: Self.notes))
        let cleared = Changeset(removedCollections: ["notes"])
        #expect(cleared.hasChange(forKey: "anything", in: Self.notes) && cleared.hasChange(in: Self.notes))
        #expect(!cleared.hasChange(in: Self.annotated))
        #expect(Changeset(allKeysRemoved: true).hasChange(in: Self.annotated))
    }

    @Test func aCommitsChangesetNamesTheTypedRowsItChanged() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        try connection.readWrite { tx in try tx.set(Note(title: "a"), forKey: "a", in: Self.notes) }
        let changesets = try reader.beginLongLivedReadTransaction()
        #expect(changesets.contains { $0.hasObjectChange(forKey: "a", in: Self.notes) })
        #expect(!changesets.contains { $0.hasChange(in: Self.annotated) })
    }

    @Test func aProxyTakesTypedCollections() throws {
        let test = try TestDatabase()
        try test.database.register(Self.annotated)
        let proxy = try ConnectionProxy(database: test.database)
        try proxy.set(Note(title: "p"), forKey: "p", in: Self.annotated, metadata: NoteInfo(pinned: true))
        #expect(try proxy.object(forKey: "p", in: Self.annotated) == Note(title: "p"))
        #expect(try proxy.metadata(forKey: "p", in: Self.annotated) == NoteInfo(pinned: true))
        try proxy.flush()
        #expect(try test.connection().read { tx in try tx.object(forKey: "p", in: Self.annotated) } == Note(title: "p"))
        proxy.removeObject(forKey: "p", in: Self.annotated)
        #expect(try proxy.object(forKey: "p", in: Self.annotated) == nil)
        let wrong = TypedCollection<Other, NoteInfo>("annotated")
        let error = #expect(throws: DatabaseError.self) { try proxy.set(Other(count: 1), forKey: "o", in: wrong) }
        #expect(error?.code == .typeMismatch)
        #expect(!proxy.hasPendingChange(forKey: "o", inCollection: "annotated"))
    }
}
