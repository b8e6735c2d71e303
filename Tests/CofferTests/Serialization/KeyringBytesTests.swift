// This file deliberately does not import Crypto: keyrings, data keys and encrypting chains must
// be buildable from plain bytes.
import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Keyrings and encrypting chains built from `[UInt8]`, `Data` and ``DataKey``.
@Suite struct KeyringBytesTests {
    struct Note: Codable, Sendable, Equatable {
        var text: String
    }

    static let arrayKey = [UInt8](repeating: 0x5A, count: 32)
    static let dataKey = Data((0..<32).map { UInt8($0) })

    @Test func aChainFromArrayAndDataKeysRoundTrips() throws {
        let keyring = try Keyring(key: Self.arrayKey, id: 1)
        try keyring.addKey(Self.dataKey, id: 2)
        try keyring.addKey(DataKey.random(), id: 3)
        #expect(keyring.keyIDs == [1, 2, 3])
        #expect(keyring.currentKeyID == 1)

        let chain = SerializerChain(codec: .codable(Note.self), stages: [.zlib(), .aesGCM(keyring)])
        let blob = try chain.serialize(Note(text: "hello"), collection: "notes", key: "n1")
        #expect(try chain.deserialize(blob, collection: "notes", key: "n1") as? Note == Note(text: "hello"))

        try keyring.setCurrent(2)
        #expect(chain.needsReencryption(blob))
        let again = try chain.serialize(Note(text: "again"), collection: "notes", key: "n1")
        #expect(try chain.deserialize(again, collection: "notes", key: "n1") as? Note == Note(text: "again"))
    }

    @Test func aKeyringFromADataKeyEncryptsLikeOneFromItsBytes() throws {
        let key = try DataKey(bytes: Self.arrayKey)
        let fromDataKey = try Keyring(key: key, id: 9)
        let fromBytes = try Keyring(key: Data(Self.arrayKey), id: 9)
        let writer = SerializerChain(codec: .codable(Note.self), stages: [.chaChaPoly(fromDataKey)])
        let reader = SerializerChain(codec: .codable(Note.self), stages: [.chaChaPoly(fromBytes)])
        let blob = try writer.serialize(Note(text: "same key"), collection: "c", key: "k")
        #expect(try reader.deserialize(blob, collection: "c", key: "k") as? Note == Note(text: "same key"))
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func aKeyOfTheWrongLengthIsInvalid(length: Int) throws {
        let bytes = [UInt8](repeating: 0xC3, count: length)
        var outcome = "accepted"
        do {
            _ = try Keyring(key: bytes, id: 1)
        } catch SerializationError.invalidKey {
            outcome = "invalidKey"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "invalidKey")

        let keyring = Keyring()
        let error = #expect(throws: SerializationError.self) { try keyring.addKey(Data(bytes), id: 2) }
        #expect(error?.code == .invalidKey)
        #expect(keyring.keyIDs.isEmpty)
        // The message names the length and the fix, never the bytes.
        #expect(error?.description.contains("\(length) bytes") == true)
        #expect(error?.description.contains("c3c3") == false)
    }

    @Test func anEncryptedCollectionWritesAndReadsThroughTheDatabase() throws {
        let test = try TestDatabase()
        let keyring = try Keyring(key: Self.arrayKey, id: 1)
        test.database.registerCodable(Note.self, forCollection: "notes", stages: [.aesGCM(keyring)])
        let connection = try test.connection()
        try connection.readWrite { tx in try tx.setObject(Note(text: "stored"), forKey: "n1", inCollection: "notes") }
        let reader = try test.connection(config: ConnectionConfig(objectCacheEnabled: false))
        #expect(
            try reader.read { try $0.object(forKey: "n1", inCollection: "notes", as: Note.self) }
                == Note(text: "stored"))
        let blob = try reader.read { try $0.serializedObject(forKey: "n1", inCollection: "notes") }
        #expect(blob.map { $0.range(of: Data("stored".utf8)) == nil } == true)
    }
}
