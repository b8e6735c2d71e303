import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Choosing the binary format per collection or per database, reading old rows, re-encoding.
@Suite("Binary codec adoption")
struct BinaryAdoptionTests {
    static func stored(_ connection: Connection, _ key: String, _ collection: String) throws -> Data? {
        try connection.read { try $0.serializedObject(forKey: key, inCollection: collection) }
    }

    @Test("A collection registered for binary writes binary rows and still reads its JSON rows")
    func perCollection() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        test.database.registerCodable(BenchUser.self, forCollection: "users")
        try connection.readWrite { try $0.setObject(BenchUser(1), forKey: "old", inCollection: "users") }
        #expect(try Self.stored(connection, "old", "users")?.first == UInt8(ascii: "{"))

        test.database.registerCodable(BenchUser.self, forCollection: "users", format: .binary)
        try connection.readWrite { try $0.setObject(BenchUser(2), forKey: "new", inCollection: "users") }
        #expect(try Self.stored(connection, "new", "users")?.first == 0xC1)
        try connection.read { tx throws in
            #expect(try tx.object(forKey: "old", inCollection: "users", as: BenchUser.self) == BenchUser(1))
            #expect(try tx.object(forKey: "new", inCollection: "users", as: BenchUser.self) == BenchUser(2))
            #expect(try tx.object(forKey: "new", inCollection: "users") as? BenchUser == BenchUser(2))
        }
        // Going back to JSON keeps the binary row readable.
        test.database.registerCodable(BenchUser.self, forCollection: "users")
        try connection.read { tx throws in
            #expect(try tx.object(forKey: "new", inCollection: "users", as: BenchUser.self) == BenchUser(2))
        }
    }

    @Test("The database-wide default applies to collections without a codec and to registrations that name no format")
    func databaseDefault() throws {
        let test = try TestDatabase { $0.codableFormat = .binary }
        let connection = try test.connection()
        try test.database.register(TypedCollection<BenchUser, NoMetadata>("typed"))
        test.database.registerCodable(BenchUser.self, forCollection: "registered")
        test.database.registerCodable(BenchUser.self, forCollection: "json", format: .json)
        try connection.readWrite { tx in
            for collection in ["typed", "registered", "json", "untyped"] {
                try tx.setObject(BenchUser(4), forKey: "k", inCollection: collection)
            }
        }
        #expect(try Self.stored(connection, "k", "typed")?.first == 0xC1)
        #expect(try Self.stored(connection, "k", "registered")?.first == 0xC1)
        #expect(try Self.stored(connection, "k", "untyped")?.first == 0xC1)
        #expect(try Self.stored(connection, "k", "json")?.first == UInt8(ascii: "{"))
        try connection.read { tx throws in
            let untyped = try #require(try tx.object(forKey: "k", inCollection: "untyped") as? EncodedValue)
            #expect(untyped.format == .binary)
            #expect(try untyped.decode(as: BenchUser.self) == BenchUser(4))
            #expect(try tx.object(forKey: "k", inCollection: "untyped", as: BenchUser.self) == BenchUser(4))
        }
    }

    @Test("Binary rows go through compression and encryption stages like any codec bytes")
    func withStages() throws {
        let test = try TestDatabase()
        let keyring = try makeKeyring()
        test.database.registerCodable(
            Kitchen.self, forCollection: "k", format: .binary, stages: [.zlib(threshold: 0), .aesGCM(keyring)])
        let connection = try test.connection(config: ConnectionConfig(objectCacheEnabled: false))
        try connection.readWrite { try $0.setObject(Kitchen.sample, forKey: "a", inCollection: "k") }
        #expect(try connection.read { try $0.object(forKey: "a", inCollection: "k", as: Kitchen.self) } == .sample)
    }

    @Test("reencode rewrites rows of other formats in batches, resumes, and leaves rows already right alone")
    func reencode() throws {
        let test = try TestDatabase()
        let connection = try test.connection(config: ConnectionConfig(objectCacheEnabled: false))
        test.database.registerCodable(BenchUser.self, metadata: Int.self, forCollection: "users")
        try connection.readWrite { tx in
            for i in 0..<25 { try tx.setObject(BenchUser(i), forKey: "u\(i)", inCollection: "users", withMetadata: i) }
        }
        test.database.registerCodable(BenchUser.self, metadata: Int.self, forCollection: "users", format: .binary)
        try connection.readWrite {
            try $0.setObject(BenchUser(3), forKey: "u3", inCollection: "users", withMetadata: 3)
        }

        var batches = 0
        let first = try test.database.reencode(collection: "users", batchSize: 10) { _ in
            batches += 1
            return false
        }
        #expect(first.examined == 10 && first.rewritten == 9 && first.total == 25)
        let rest = try test.database.reencode(collection: "users", batchSize: 10)
        #expect(rest.examined == 15 && rest.rewritten == 15)
        #expect(batches == 1)
        try connection.read { tx throws in
            for i in 0..<25 {
                #expect(try tx.serializedObject(forKey: "u\(i)", inCollection: "users")?.first == 0xC1)
                #expect(try tx.object(forKey: "u\(i)", inCollection: "users", as: BenchUser.self) == BenchUser(i))
                #expect(try tx.metadata(forKey: "u\(i)", inCollection: "users") as? Int == i)
            }
        }
        #expect(try test.database.reencode(collection: "users").rewritten == 0)
    }

    @Test("reencode refuses a collection whose type it does not know")
    func reencodeNeedsAType() throws {
        let test = try TestDatabase()
        let error = #expect(throws: DatabaseError.self) { try test.database.reencode(collection: "untyped") }
        #expect(error?.code == .misuse)
    }
}
