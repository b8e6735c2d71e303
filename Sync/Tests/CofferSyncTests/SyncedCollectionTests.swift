import Coffer
import Foundation
import Testing

@testable import CofferSync

/// Declaring a synced collection from Coffer's typed handles: a `TypedCollection` with a
/// metadata type syncs its metadata, a `CollectionHandle` keeps metadata on the device, exactly
/// like the name-and-types declarations.
@Suite struct SyncedCollectionTests {
    @Test func aTypedHandleSyncsWhatTheEquivalentDeclarationSyncs() throws {
        let directory = try SyncTestDirectory()
        var options = DatabaseOptions()
        options.key = .raw(Data(repeating: 0x42, count: 32))
        let db = try Database(url: directory.url.appendingPathComponent("handles.coffer"), options: options)
        let tagged = TypedCollection<Note, Tag>("notes")
        try db.register(tagged)
        let connection = try db.newConnection()
        try connection.readWrite { tx in
            try tx.set(Note(text: "body"), forKey: "k", in: tagged, metadata: Tag(label: "local tag"))
        }

        func wire(_ collection: SyncedCollection) throws -> (object: Data, metadata: Data?)? {
            try connection.read { tx in try collection.readWire(tx, "k") }
        }
        let fromTypedHandle = try #require(try wire(.collection(tagged)))
        let declared = try #require(try wire(.collection("notes", objects: Note.self, metadata: Tag.self)))
        #expect(fromTypedHandle.object == declared.object)
        #expect(fromTypedHandle.metadata == declared.metadata)
        let metadata = try #require(fromTypedHandle.metadata)
        #expect(try BinaryDecoder().decode(Tag.self, from: metadata) == Tag(label: "local tag"))

        let fromHandle = try #require(try wire(.collection(CollectionHandle<Note>("notes"))))
        #expect(fromHandle.object == declared.object)
        #expect(fromHandle.metadata == nil, "a CollectionHandle's metadata stays on the device")
        #expect(try wire(.collection("notes", objects: Note.self))?.metadata == nil)
        try db.close()
    }
}
