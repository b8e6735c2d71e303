import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Every read API of a transaction, on real encrypted files.
@Suite struct TransactionReadTests {
    /// Three collections: "notes" (Codable Note + Tag metadata), "blobs" (raw Data), "" (automatic JSON).
    private func populated(_ kind: TestKeyKind = .raw) throws -> TestDatabase {
        let test = try TestDatabase(kind)
        let db = test.database
        db.registerCodable(Note.self, metadata: Tag.self, forCollection: "notes")
        db.registerData(forCollection: "blobs")
        try test.connection().readWrite { tx throws in
            for index in 0..<5 {
                try tx.setObject(
                    Note(title: "t\(index)", body: "b\(index)"), forKey: "n\(index)", inCollection: "notes",
                    withMetadata: Tag(label: "l\(index)", rank: index))
            }
            try tx.setObject(Data([0, 1, 2, 255]), forKey: "bin", inCollection: "blobs")
            try tx.setObject("plain", forKey: "s", inCollection: nil)
            try tx.setObject(42, forKey: "i", inCollection: nil, withMetadata: "meta")
        }
        return test
    }

    @Test(arguments: TestKeyKind.allCases)
    func countsAndLists(kind: TestKeyKind) throws {
        let test = try populated(kind)
        // A fresh connection: nothing cached, everything read from the encrypted file.
        try test.connection().read { tx throws in
            #expect(try tx.numberOfCollections() == 3)
            #expect(try tx.numberOfKeys(inCollection: "notes") == 5)
            #expect(try tx.numberOfKeys(inCollection: "blobs") == 1)
            #expect(try tx.numberOfKeys(inCollection: nil) == 2)
            #expect(try tx.numberOfKeys(inCollection: "") == 2)
            #expect(try tx.numberOfKeys(inCollection: "missing") == 0)
            #expect(try tx.numberOfKeysInAllCollections() == 8)
            #expect(Set(try tx.allCollections()) == ["notes", "blobs", ""])
            #expect(Set(try tx.allKeys(inCollection: "notes")) == Set((0..<5).map { "n\($0)" }))
            #expect(Set(try tx.allKeys(inCollection: nil)) == ["s", "i"])
            #expect(try tx.allKeys(inCollection: "missing").isEmpty)
        }
    }

    @Test func emptyDatabase() throws {
        let test = try TestDatabase()
        try test.connection().read { tx throws in
            #expect(tx.snapshot == 0)
            #expect(try tx.numberOfCollections() == 0)
            #expect(try tx.numberOfKeysInAllCollections() == 0)
            #expect(try tx.allCollections().isEmpty)
            #expect(try tx.object(forKey: "k", inCollection: nil) == nil)
            #expect(try tx.metadata(forKey: "k", inCollection: nil) == nil)
            #expect(try tx.objectAndMetadata(forKey: "k", inCollection: nil) == nil)
            #expect(try tx.serializedObjectAndMetadata(forKey: "k", inCollection: nil) == nil)
            #expect(try !tx.hasObject(forKey: "k", inCollection: nil))
        }
    }

    @Test(arguments: TestKeyKind.allCases)
    func singleRowGetters(kind: TestKeyKind) throws {
        let test = try populated(kind)
        for connection in [
            try test.connection(),
            try test.connection(config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false)),
        ] {
            try connection.read { tx throws in
                #expect(try tx.hasObject(forKey: "n1", inCollection: "notes"))
                #expect(try !tx.hasObject(forKey: "n1", inCollection: "blobs"))
                #expect(try !tx.hasObject(forKey: "zz", inCollection: "notes"))

                // Registered Codable: untyped and typed reads give the Note.
                let untyped = try tx.object(forKey: "n2", inCollection: "notes")
                #expect(untyped as? Note == Note(title: "t2", body: "b2"))
                #expect(
                    try tx.object(forKey: "n2", inCollection: "notes", as: Note.self) == Note(title: "t2", body: "b2"))
                #expect(try tx.metadata(forKey: "n2", inCollection: "notes", as: Tag.self) == Tag(label: "l2", rank: 2))
                #expect(try tx.metadata(forKey: "n2", inCollection: "notes") as? Tag == Tag(label: "l2", rank: 2))
                let both = try #require(try tx.objectAndMetadata(forKey: "n3", inCollection: "notes"))
                #expect(both.object as? Note == Note(title: "t3", body: "b3"))
                #expect(both.metadata as? Tag == Tag(label: "l3", rank: 3))

                // Raw Data is stored byte for byte.
                #expect(try tx.object(forKey: "bin", inCollection: "blobs", as: Data.self) == Data([0, 1, 2, 255]))
                #expect(try tx.serializedObject(forKey: "bin", inCollection: "blobs") == Data([0, 1, 2, 255]))
                #expect(try tx.metadata(forKey: "bin", inCollection: "blobs") == nil)

                // The automatic default stores JSON; untyped reads give the encoded bytes, typed reads decode.
                let encoded = try #require(try tx.object(forKey: "s", inCollection: nil) as? EncodedValue)
                #expect(try encoded.decode(as: String.self) == "plain")
                #expect(try tx.object(forKey: "s", inCollection: nil, as: String.self) == "plain")
                #expect(try tx.object(forKey: "i", inCollection: "", as: Int.self) == 42)
                #expect(try tx.metadata(forKey: "i", inCollection: nil, as: String.self) == "meta")
                #expect(try tx.serializedObject(forKey: "s", inCollection: nil) == Data(#""plain""#.utf8))
                #expect(try tx.serializedMetadata(forKey: "i", inCollection: nil) == Data(#""meta""#.utf8))
                #expect(try tx.serializedMetadata(forKey: "s", inCollection: nil) == nil)
                let serialized = try #require(try tx.serializedObjectAndMetadata(forKey: "i", inCollection: nil))
                #expect(serialized.object == Data("42".utf8))
                #expect(serialized.metadata == Data(#""meta""#.utf8))

                // Missing rows.
                #expect(try tx.object(forKey: "zz", inCollection: "notes", as: Note.self) == nil)
                #expect(try tx.metadata(forKey: "zz", inCollection: "notes", as: Tag.self) == nil)
                #expect(try tx.serializedObject(forKey: "zz", inCollection: "notes") == nil)
                #expect(try tx.serializedMetadata(forKey: "zz", inCollection: "notes") == nil)
            }
        }
    }

    @Test func typedReadsAreCachedAndRepeatable() throws {
        let test = try populated()
        let conn = try test.connection()
        try conn.read { tx throws in
            for _ in 0..<3 {
                #expect(try tx.object(forKey: "s", inCollection: nil, as: String.self) == "plain")
                #expect(try tx.object(forKey: "n0", inCollection: "notes", as: Note.self)?.title == "t0")
            }
        }
        try conn.read { tx throws in
            #expect(try tx.object(forKey: "s", inCollection: nil, as: String.self) == "plain")
        }
    }

    @Test func typeMismatch() throws {
        let test = try populated()
        try test.connection().read { tx throws in
            let error = try #require(throws: DatabaseError.self) {
                try tx.object(forKey: "n1", inCollection: "notes", as: Int.self)
            }
            #expect(error.code == .typeMismatch)
            #expect(error.collection == "notes")
            #expect(error.key == "n1")
            let metadataError = try #require(throws: DatabaseError.self) {
                try tx.metadata(forKey: "n1", inCollection: "notes", as: Note.self)
            }
            #expect(metadataError.code == .typeMismatch)
            let dataError = try #require(throws: DatabaseError.self) {
                try tx.object(forKey: "bin", inCollection: "blobs", as: String.self)
            }
            #expect(dataError.code == .typeMismatch)
            // A non-Decodable type on an automatic-JSON row cannot decode: also a type mismatch.
            let nonDecodable = try #require(throws: DatabaseError.self) {
                try tx.object(forKey: "s", inCollection: nil, as: NSObject.self)
            }
            #expect(nonDecodable.code == .typeMismatch)
        }
    }

    @Test func automaticJSONDecodedAsTheWrongTypeIsASerializationError() throws {
        let test = try populated()
        try test.connection().read { tx throws in
            let error = try #require(throws: DatabaseError.self) {
                try tx.object(forKey: "s", inCollection: nil, as: Int.self)
            }
            #expect(error.code == .serialization)
            #expect(error.collection == "")
            #expect(error.key == "s")
        }
    }

    @Test func undecodableStoredBytesNameCollectionAndKey() throws {
        let test = try TestDatabase()
        test.database.registerCodable(Note.self, metadata: Tag.self, forCollection: "notes")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            try tx.setObject(
                Note(title: "x", body: "y"), forKey: "broken", inCollection: "notes", withMetadata: nil,
                serializedObject: Data("not json at all".utf8), serializedMetadata: nil)
            try tx.setObject(
                Note(title: "x", body: "y"), forKey: "badmeta", inCollection: "notes",
                withMetadata: Tag(label: "a", rank: 1), serializedObject: nil,
                serializedMetadata: Data([0xFF, 0xFE]))
        }
        let reader = try test.connection()
        try reader.read { tx throws in
            let error = try #require(throws: DatabaseError.self) {
                try tx.object(forKey: "broken", inCollection: "notes")
            }
            #expect(error.code == .serialization)
            #expect(error.collection == "notes")
            #expect(error.key == "broken")
            #expect(error.underlying is SerializationError)
            #expect(String(describing: error).contains("broken"))
            #expect(!String(describing: error).contains("not json at all"))
            let typed = try #require(throws: DatabaseError.self) {
                try tx.object(forKey: "broken", inCollection: "notes", as: Note.self)
            }
            #expect(typed.code == .serialization)
            let metadataError = try #require(throws: DatabaseError.self) {
                try tx.metadata(forKey: "badmeta", inCollection: "notes")
            }
            #expect(metadataError.code == .serialization)
            #expect(metadataError.key == "badmeta")
            // The raw bytes are still there, untouched.
            #expect(try tx.serializedObject(forKey: "broken", inCollection: "notes") == Data("not json at all".utf8))
            // Enumerations report the same error instead of skipping the row.
            let enumerationError = try #require(throws: DatabaseError.self) {
                try tx.enumerateKeysAndObjects(inCollection: "notes") { _, _, _ in }
            }
            #expect(enumerationError.code == .serialization)
            #expect(enumerationError.collection == "notes")
        }
        // The writer cached what it was given, not what is stored.
        try writer.read { tx throws in
            #expect(
                try tx.object(forKey: "broken", inCollection: "notes", as: Note.self) == Note(title: "x", body: "y"))
        }
    }

    @Test func transactionUsedAfterItsClosureIsMisuse() throws {
        let test = try populated()
        let conn = try test.connection()
        var escapedRead: ReadTransaction?
        try conn.read { tx in escapedRead = tx }
        let read = try #require(escapedRead)
        let calls: [(ReadTransaction) throws -> Void] = [
            { _ = try $0.object(forKey: "s", inCollection: nil) },
            { _ = try $0.metadata(forKey: "i", inCollection: nil) },
            { _ = try $0.hasObject(forKey: "s", inCollection: nil) },
            { _ = try $0.numberOfCollections() },
            { _ = try $0.numberOfKeys(inCollection: nil) },
            { _ = try $0.numberOfKeysInAllCollections() },
            { _ = try $0.allCollections() },
            { _ = try $0.allKeys(inCollection: nil) },
            { _ = try $0.serializedObject(forKey: "s", inCollection: nil) },
            { _ = try $0.serializedMetadata(forKey: "s", inCollection: nil) },
            { _ = try $0.serializedObjectAndMetadata(forKey: "s", inCollection: nil) },
            { try $0.enumerateKeys(inCollection: nil) { _, _ in } },
            { try $0.enumerateObjects(forKeys: ["s"], inCollection: nil) { _, _, _ in } },
        ]
        for call in calls {
            let error = try #require(throws: DatabaseError.self) { try call(read) }
            #expect(error.code == .misuse)
        }

        var escapedWrite: ReadWriteTransaction?
        try conn.readWrite { tx in escapedWrite = tx }
        let write = try #require(escapedWrite)
        let writes: [(ReadWriteTransaction) throws -> Void] = [
            { try $0.setObject("x", forKey: "k", inCollection: nil) },
            { try $0.replaceObject("x", forKey: "s", inCollection: nil) },
            { try $0.replaceMetadata("x", forKey: "s", inCollection: nil) },
            { try $0.removeObject(forKey: "s", inCollection: nil) },
            { try $0.removeObjects(forKeys: ["s"], inCollection: nil) },
            { try $0.removeAllObjects(inCollection: nil) },
            { try $0.removeAllObjectsInAllCollections() },
            { try $0.touchObject(forKey: "s", inCollection: nil) },
            { _ = try $0.object(forKey: "s", inCollection: nil) },
        ]
        for call in writes {
            let error = try #require(throws: DatabaseError.self) { try call(write) }
            #expect(error.code == .misuse)
        }
        // Nothing was written through the stale transaction.
        #expect(try conn.read { tx in try tx.numberOfKeysInAllCollections() } == 8)
    }

    @Test func transactionExposesConnectionSnapshotAndUserInfo() throws {
        let test = try populated()
        let conn = try test.connection()
        try conn.read { tx throws in
            #expect(tx.connection === conn)
            #expect(tx.snapshot == 1)
            tx.userInfo["scratch"] = 5
            #expect(tx.userInfo["scratch"] as? Int == 5)
        }
    }

    @Test func readValuesAreReturnedFromTheClosure() throws {
        let test = try populated()
        let titles = try test.connection().read { tx throws in
            try (0..<5).compactMap { try tx.object(forKey: "n\($0)", inCollection: "notes", as: Note.self)?.title }
        }
        #expect(titles == ["t0", "t1", "t2", "t3", "t4"])
        struct Failure: Error {}
        #expect(throws: Failure.self) { try test.connection().read { _ in throw Failure() } }
    }
}

extension TransactionReadTests {
    struct NoteV2: Codable, Sendable, Equatable {
        var title: String
    }

    /// A typed read of an automatic-JSON row decodes the stored JSON; whether the writer's
    /// cache holds the Swift value it wrote must not change the answer.
    @Test func typedReadOfAutomaticJSONDoesNotDependOnTheCache() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject(42, forKey: "n", inCollection: "auto")
            try tx.setObject(Note(title: "t", body: "b"), forKey: "note", inCollection: "auto")
        }
        let fresh = try test.connection()
        for connection in [fresh, writer] {
            try connection.read { tx throws in
                #expect(try tx.object(forKey: "n", inCollection: "auto", as: Double.self) == 42.0)
                #expect(try tx.object(forKey: "note", inCollection: "auto", as: NoteV2.self) == NoteV2(title: "t"))
                #expect(try tx.object(forKey: "n", inCollection: "auto", as: Int.self) == 42)
                #expect(try tx.object(forKey: "n", inCollection: "auto", as: Double.self) == 42.0)
            }
        }
    }
}

extension TransactionReadTests {
    @Test func typedMetadataReadOfAutomaticJSONDoesNotDependOnTheCache() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject("o", forKey: "k", inCollection: "auto", withMetadata: 7) }
        for connection in [try test.connection(), writer] {
            try connection.read { tx throws in
                #expect(try tx.metadata(forKey: "k", inCollection: "auto", as: Double.self) == 7.0)
                #expect(try tx.metadata(forKey: "k", inCollection: "auto", as: Int.self) == 7)
                let mismatch = try #require(throws: DatabaseError.self) {
                    try tx.metadata(forKey: "k", inCollection: "auto", as: [String].self)
                }
                #expect(mismatch.code == .serialization)
            }
        }
        // Registered Codable collections still report a type mismatch.
        test.database.registerCodable(Note.self, forCollection: "notes")
        try writer.readWrite { tx in try tx.setObject(Note(title: "t", body: "b"), forKey: "n", inCollection: "notes") }
        for connection in [try test.connection(), writer] {
            let error = try #require(throws: DatabaseError.self) {
                try connection.read { tx in try tx.object(forKey: "n", inCollection: "notes", as: NoteV2.self) }
            }
            #expect(error.code == .typeMismatch)
        }
    }
}
