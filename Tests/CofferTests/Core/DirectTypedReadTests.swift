import CofferTestSupport
import Crypto
import Foundation
import Testing

@testable import Coffer

/// Uncached typed reads decode straight into the requested type when the codec produces it; they
/// must give exactly what the boxed path gives, values and errors alike.
@Suite struct DirectTypedReadTests {
    struct Note: Codable, Sendable, Equatable {
        var title: String
        var body: String
    }

    struct Other: Codable, Sendable, Equatable {
        var count: Int
    }

    let dir = TemporaryDirectory()

    func open() throws -> Database {
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions(TestSupport.randomKey()))
        let keyring = try Keyring(key: SymmetricKey(size: .bits256), id: 1)
        db.registerSerializer(SerializerChain(codec: .data), forCollection: "raw")
        // Data through stages: a typed read must undo them, not hand out the stored bytes.
        db.registerSerializer(SerializerChain(codec: .data, stages: [.zlib(threshold: 0)]), forCollection: "packed")
        db.registerCodable(Note.self, forCollection: "notes")
        db.registerCodable(Note.self, forCollection: "sealed", stages: [.zlib(threshold: 8), .aesGCM(keyring)])
        return db
    }

    func uncached(_ db: Database) throws -> Connection {
        let connection = try db.newConnection()
        connection.objectCacheEnabled = false
        return connection
    }

    @Test(arguments: [false, true])
    func typedReadsAndEnumerationsMatchTheBoxedPath(cacheEnabled: Bool) throws {
        let db = try open()
        let writer = try db.newConnection()
        let notes = (0..<20).map { Note(title: "t\($0)", body: String(repeating: "b", count: $0 * 7)) }
        try writer.readWrite { tx in
            for (index, note) in notes.enumerated() {
                try tx.setObject(Data(note.title.utf8), forKey: "k\(index)", inCollection: "raw")
                try tx.setObject(Data(note.body.utf8), forKey: "k\(index)", inCollection: "packed")
                try tx.setObject(note, forKey: "k\(index)", inCollection: "notes")
                try tx.setObject(note, forKey: "k\(index)", inCollection: "sealed")
            }
        }
        let reader = try db.newConnection()
        reader.objectCacheEnabled = cacheEnabled
        try reader.read { tx in
            for (index, note) in notes.enumerated() {
                #expect(try tx.object(forKey: "k\(index)", inCollection: "raw", as: Data.self) == Data(note.title.utf8))
                let packed = try tx.object(forKey: "k\(index)", inCollection: "packed", as: Data.self)
                #expect(packed == Data(note.body.utf8))
                #expect(try tx.object(forKey: "k\(index)", inCollection: "notes", as: Note.self) == note)
                #expect(try tx.object(forKey: "k\(index)", inCollection: "sealed", as: Note.self) == note)
            }
            #expect(try tx.object(forKey: "missing", inCollection: "notes", as: Note.self) == nil)
            for collection in ["notes", "sealed"] {
                var seen: [String: Note] = [:]
                try tx.enumerateKeysAndObjects(inCollection: collection, as: Note.self) { key, note, _ in
                    seen[key] = note
                }
                #expect(seen.count == notes.count)
                for (index, note) in notes.enumerated() { #expect(seen["k\(index)"] == note) }
            }
            var raw = 0
            try tx.enumerateKeysAndObjects(inCollection: "raw", as: Data.self, filter: { $0 != "k0" }) { _, data, _ in
                #expect(data.starts(with: Data("t".utf8)))
                raw += 1
            }
            #expect(raw == notes.count - 1)
            var packed: [String: Data] = [:]
            try tx.enumerateKeysAndObjects(inCollection: "packed", as: Data.self) { key, data, _ in packed[key] = data }
            #expect(packed.count == notes.count)
            for (index, note) in notes.enumerated() { #expect(packed["k\(index)"] == Data(note.body.utf8)) }
        }
    }

    /// Uncached reads of stored `Data` write into the storage of the previous read when the caller
    /// kept nothing: values the caller keeps stay intact whatever the reads after them return, and
    /// a missing row, an empty value and values past the reuse limit all come out right.
    @Test func keptPointReadsOfDataSurviveTheReadsAfterThem() throws {
        let db = try open()
        let sizes = [300, 5, 0, 1_000, 14, 15, ReadTransaction.lentBytesLimit + 1, 250, 70_000, 1, 64]
        var expected: [String: Data] = [:]
        for (index, size) in sizes.enumerated() {
            expected["k\(index)"] = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
        }
        try db.newConnection().readWrite { tx in
            for (key, value) in expected { try tx.setObject(value, forKey: key, inCollection: "raw") }
        }
        try uncached(db).read { tx in
            var kept: [String: Data] = [:]
            for round in 0..<2 {
                for index in sizes.indices {
                    let key = "k\(index)"
                    let value = try tx.object(forKey: key, inCollection: "raw", as: Data.self)
                    #expect(value == expected[key], "\(key) as read")
                    if (index + round).isMultiple(of: 2) { kept[key] = value }
                    #expect(try tx.object(forKey: "missing", inCollection: "raw", as: Data.self) == nil)
                }
            }
            #expect(kept.count == sizes.count)
            for (key, value) in kept {
                #expect(value == expected[key], "\(key) after the reads that followed it")
            }
            #expect(tx.lentBytes.count <= ReadTransaction.lentBytesLimit)
        }
        // A NULL stored value (only a foreign file has one) reads as no object, as it always did.
        try db.newConnection().readWrite { tx in
            try tx.core.sqlite.execute("UPDATE database2 SET data = NULL WHERE collection = 'raw' AND key = 'k0'")
        }
        try uncached(db).read { tx in
            _ = try tx.object(forKey: "k1", inCollection: "raw", as: Data.self)
            #expect(try tx.object(forKey: "k0", inCollection: "raw", as: Data.self) == nil)
        }
    }

    /// The uncached `Data` read checks that its transaction is still running (no cache lookup
    /// does it first), and reads the default collection, named nil or "", like any other.
    @Test func uncachedDataReadsCheckTheTransactionAndReadTheDefaultCollection() throws {
        let db = try open()
        db.registerSerializer(SerializerChain(codec: .data), forCollection: "")
        try db.newConnection().readWrite { tx in
            try tx.setObject(Data([1, 2]), forKey: "a", inCollection: nil)
            try tx.setObject(Data([3]), forKey: "a", inCollection: "raw")
        }
        let escaped = try uncached(db).read { tx throws -> ReadTransaction in
            #expect(try tx.object(forKey: "a", inCollection: nil, as: Data.self) == Data([1, 2]))
            #expect(try tx.object(forKey: "a", inCollection: "", as: Data.self) == Data([1, 2]))
            #expect(try tx.object(forKey: "a", inCollection: "raw", as: Data.self) == Data([3]))
            #expect(try tx.object(forKey: "b", inCollection: nil, as: Data.self) == nil)
            return tx
        }
        let error = #expect(throws: DatabaseError.self) {
            try escaped.object(forKey: "a", inCollection: "raw", as: Data.self)
        }
        #expect(error?.code == .misuse)
    }

    @Test func aTypeTheCodecDoesNotProduceIsATypedErrorNamingTheRow() throws {
        let db = try open()
        try db.newConnection().readWrite { tx in
            try tx.setObject(Note(title: "a", body: "b"), forKey: "n", inCollection: "notes")
            try tx.setObject(Data([1, 2, 3]), forKey: "r", inCollection: "raw")
        }
        let reader = try uncached(db)
        try reader.read { tx in
            let wrongType = #expect(throws: DatabaseError.self) {
                _ = try tx.object(forKey: "n", inCollection: "notes", as: Other.self)
            }
            #expect(wrongType?.collection == "notes" && wrongType?.key == "n")
            let wrongRaw = #expect(throws: DatabaseError.self) {
                _ = try tx.object(forKey: "r", inCollection: "raw", as: String.self)
            }
            #expect(wrongRaw?.code == .typeMismatch)
            #expect(wrongRaw?.collection == "raw" && wrongRaw?.key == "r")
            let inEnumeration = #expect(throws: DatabaseError.self) {
                try tx.enumerateKeysAndObjects(inCollection: "notes", as: Other.self) { _, _, _ in }
            }
            #expect(inEnumeration?.key == "n")
        }
    }

    @Test func aTamperedSealedBlobFailsAuthenticationOnTheDirectPath() throws {
        let db = try open()
        let writer = try db.newConnection()
        try writer.readWrite { tx in try tx.setObject(Note(title: "a", body: "b"), forKey: "s", inCollection: "sealed")
        }
        var blob = try #require(try writer.read { try $0.serializedObject(forKey: "s", inCollection: "sealed") })
        blob[blob.count - 1] ^= 0x01
        try writer.readWrite { tx in
            try tx.setObject(
                Note(title: "x", body: "y"), forKey: "s", inCollection: "sealed", withMetadata: nil,
                serializedObject: blob, serializedMetadata: nil)
        }
        let reader = try uncached(db)
        try reader.read { tx in
            let error = #expect(throws: DatabaseError.self) {
                _ = try tx.object(forKey: "s", inCollection: "sealed", as: Note.self)
            }
            #expect(error?.code == .serialization)
            #expect(error?.collection == "sealed" && error?.key == "s")
            #expect((error?.underlying as? SerializationError)?.code == .authenticationFailed)
        }
        #expect(try reader.read { try $0.serializedObject(forKey: "s", inCollection: "sealed") } == blob)
    }

    @Test func cachedTypedReadsCountOneLookupEachAndDecodeWhatTheCacheHoldsAsJSON() throws {
        let db = try open()
        try db.newConnection().readWrite { tx in
            // No codec for "plain": the row is automatic JSON and an untyped read gives an EncodedValue.
            try tx.setObject(Note(title: "p", body: "q"), forKey: "p", inCollection: "plain")
            try tx.setObject(Note(title: "a", body: "b"), forKey: "n", inCollection: "notes")
        }
        let reader = try db.newConnection()
        reader.objectCacheEnabled = true
        let escaped = try reader.read { tx in
            let untyped = try tx.object(forKey: "p", inCollection: "plain")
            #expect(untyped is EncodedValue)
            // The cache holds the EncodedValue: the typed read decodes it and leaves it there, so an
            // untyped read still gives what every other connection gives.
            #expect(try tx.object(forKey: "p", inCollection: "plain", as: Note.self) == Note(title: "p", body: "q"))
            let cached = try tx.object(forKey: "p", inCollection: "plain")
            #expect(cached is EncodedValue)
            #expect(try tx.object(forKey: "p", inCollection: "plain", as: Note.self) == Note(title: "p", body: "q"))
            #expect(try tx.object(forKey: "missing", inCollection: "plain", as: Note.self) == nil)
            #expect(try tx.object(forKey: "n", inCollection: "notes", as: Note.self) == Note(title: "a", body: "b"))
            let wrongType = #expect(throws: DatabaseError.self) {
                _ = try tx.object(forKey: "n", inCollection: "notes", as: Other.self)
            }
            #expect(wrongType?.code == .typeMismatch)
            #expect(wrongType?.collection == "notes" && wrongType?.key == "n")
            return tx
        }
        // One lookup per read: misses for the first untyped read, "missing" and the first read of "n";
        // hits for the other three reads of "p" and the mistyped read of "n".
        #expect(reader.core.objectCache.statistics.missCount == 3)
        #expect(reader.core.objectCache.statistics.hitCount == 4)
        let misuse = #expect(throws: DatabaseError.self) {
            _ = try escaped.object(forKey: "n", inCollection: "notes", as: Note.self)
        }
        #expect(misuse?.code == .misuse)
    }
}
