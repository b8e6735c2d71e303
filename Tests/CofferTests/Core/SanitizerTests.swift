import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Pre-sanitizers run before serialization and may replace or drop a value; post-sanitizers run
/// after the write; neither runs on reads.
@Suite struct SanitizerTests {
    /// A database whose "notes" collection logs every sanitizer call and every encode, in order.
    private func setUp() throws -> (TestDatabase, log: Locked<[String]>, codec: CountingCodec<Note>) {
        let test = try TestDatabase()
        let db = test.database
        let log = Locked<[String]>([])
        let codec = CountingCodec<Note>()
        db.registerObjectSerializer(
            SerializerChain(
                codec: Serializer(
                    name: "logging",
                    encode: { object in
                        log.append("encode:\((object as? Note)?.title ?? "?")")
                        return try codec.chain.serialize(object, collection: "notes", key: "")
                    },
                    decode: { data in try codec.chain.deserialize(data, collection: "notes", key: "") })),
            forCollection: "notes")
        db.registerObjectPreSanitizer(
            { collection, key, object in
                log.append("pre:\(collection)/\(key)")
                guard let note = object as? Note else { return object }
                if note.title == "drop" { return nil }
                return Note(title: note.title.uppercased(), body: note.body)
            }, forCollection: "notes")
        db.registerObjectPostSanitizer(
            { collection, key, object in
                log.append("post:\(collection)/\(key):\((object as? Note)?.title ?? "?")")
            }, forCollection: "notes")
        return (test, log, codec)
    }

    @Test func preSanitizerReplacesTheObjectAndPostSanitizerRunsAfterTheWrite() throws {
        let (test, log, _) = try setUp()
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            try tx.setObject(Note(title: "hello", body: "b"), forKey: "k", inCollection: "notes")
            // The writer reads back the sanitized value.
            #expect(try tx.object(forKey: "k", inCollection: "notes", as: Note.self)?.title == "HELLO")
        }
        #expect(log.value == ["pre:notes/k", "encode:HELLO", "post:notes/k:HELLO"])
        let stored = try test.connection().read { tx in try tx.object(forKey: "k", inCollection: "notes", as: Note.self)
        }
        #expect(stored == Note(title: "HELLO", body: "b"))
    }

    @Test func preSanitizerReturningNilRemovesTheRow() throws {
        let (test, log, _) = try setUp()
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject(Note(title: "keep", body: "b"), forKey: "k", inCollection: "notes")
        }
        log.withLock { $0.removeAll() }
        try writer.readWrite { tx throws in
            try tx.setObject(Note(title: "drop", body: "b"), forKey: "k", inCollection: "notes")
            try tx.setObject(Note(title: "drop", body: "b"), forKey: "never-stored", inCollection: "notes")
        }
        #expect(log.value == ["pre:notes/k", "pre:notes/never-stored"])
        try test.connection().read { tx throws in
            #expect(try !tx.hasObject(forKey: "k", inCollection: "notes"))
            #expect(try !tx.hasObject(forKey: "never-stored", inCollection: "notes"))
        }
        // replaceObject goes through the pre-sanitizer too.
        try writer.readWrite { tx in
            try tx.setObject(Note(title: "again", body: "b"), forKey: "r", inCollection: "notes")
        }
        try writer.readWrite { tx in
            try tx.replaceObject(Note(title: "swap", body: "c"), forKey: "r", inCollection: "notes")
        }
        #expect(
            try test.connection().read { tx in try tx.object(forKey: "r", inCollection: "notes", as: Note.self) }?.title
                == "SWAP")
        try writer.readWrite { tx in
            try tx.replaceObject(Note(title: "drop", body: "c"), forKey: "r", inCollection: "notes")
        }
        #expect(try test.connection().read { tx in try tx.hasObject(forKey: "r", inCollection: "notes") } == false)
    }

    @Test func sanitizersNeverRunOnReads() throws {
        let (test, log, codec) = try setUp()
        try test.connection().readWrite { tx in
            for index in 0..<5 {
                try tx.setObject(Note(title: "n\(index)", body: "b"), forKey: "k\(index)", inCollection: "notes")
            }
        }
        log.withLock { $0.removeAll() }
        let reader = try test.connection()
        try reader.read { tx throws in
            _ = try tx.object(forKey: "k0", inCollection: "notes")
            _ = try tx.objectAndMetadata(forKey: "k1", inCollection: "notes")
            try tx.enumerateKeysAndObjects(inCollection: "notes") { _, _, _ in }
            try tx.enumerateRowsInAllCollections { _, _, _, _, _ in }
            try tx.enumerateObjects(forKeys: ["k2", "k3"], inCollection: "notes") { _, _, _ in }
        }
        #expect(log.value.isEmpty)
        #expect(codec.decodes.value > 0)
    }

    /// Settings registered after transactions resolved a collection apply from the next transaction:
    /// resolved configurations are shared between transactions, so a change must start afresh.
    @Test func registrationBetweenTransactionsAppliesToTheNextOne() throws {
        let test = try TestDatabase()
        let db = test.database
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject("first", forKey: "a", inCollection: "c") }
        db.registerObjectPreSanitizer({ _, _, object in "\(object)!" }, forCollection: "c")
        try writer.readWrite { tx in try tx.setObject("second", forKey: "b", inCollection: "c") }
        db.registerDefaultPreSanitizer { _, _, object in "\(object)?" }
        try writer.readWrite { tx in
            try tx.setObject("third", forKey: "c", inCollection: "c")
            try tx.setObject("fourth", forKey: "d", inCollection: "other")
        }
        try test.connection().read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "c", as: String.self) == "first")
            #expect(try tx.object(forKey: "b", inCollection: "c", as: String.self) == "second!")
            #expect(try tx.object(forKey: "c", inCollection: "c", as: String.self) == "third!")
            #expect(try tx.object(forKey: "d", inCollection: "other", as: String.self) == "fourth?")
        }
    }

    @Test func metadataSanitizers() throws {
        let test = try TestDatabase()
        let db = test.database
        let post = Locked<[String]>([])
        db.registerMetadataPreSanitizer(
            { _, _, metadata in
                guard let text = metadata as? String else { return metadata }
                return text == "clear" ? nil : text.lowercased()
            }, forCollection: "c")
        db.registerMetadataPostSanitizer({ _, key, metadata in post.append("\(key):\(metadata)") }, forCollection: "c")
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "a", inCollection: "c", withMetadata: "LOUD")
            try tx.setObject(2, forKey: "b", inCollection: "c", withMetadata: "clear")
            try tx.setObject(3, forKey: "c", inCollection: "c")
        }
        try writer.readWrite { tx in try tx.replaceMetadata("AGAIN", forKey: "c", inCollection: "c") }
        try test.connection().read { tx throws in
            #expect(try tx.metadata(forKey: "a", inCollection: "c", as: String.self) == "loud")
            #expect(try tx.metadata(forKey: "b", inCollection: "c") == nil)
            #expect(try tx.object(forKey: "b", inCollection: "c", as: Int.self) == 2)
            #expect(try tx.metadata(forKey: "c", inCollection: "c", as: String.self) == "again")
        }
        #expect(post.value == ["a:loud", "c:again"])
    }

    @Test func defaultSanitizersApplyToCollectionsWithoutTheirOwn() throws {
        let test = try TestDatabase()
        let db = test.database
        let post = Locked(0)
        db.registerDefaultPreSanitizer { _, _, value in (value as? String).map { $0 + "!" } ?? value }
        db.registerDefaultPostSanitizer { _, _, _ in post.withLock { $0 += 1 } }
        db.registerObjectPreSanitizer({ _, _, value in value }, forCollection: "own")
        try test.connection().readWrite { tx in
            try tx.setObject("x", forKey: "k", inCollection: "any", withMetadata: "m")
            try tx.setObject("y", forKey: "k", inCollection: "own")
        }
        try test.connection().read { tx throws in
            #expect(try tx.object(forKey: "k", inCollection: "any", as: String.self) == "x!")
            #expect(try tx.metadata(forKey: "k", inCollection: "any", as: String.self) == "m!")
            #expect(try tx.object(forKey: "k", inCollection: "own", as: String.self) == "y")
        }
        // Object and metadata post-sanitizers of "any", and the object post-sanitizer of "own".
        #expect(post.value == 3)
    }
}
