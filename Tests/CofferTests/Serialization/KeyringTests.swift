import Crypto
import Foundation
import Testing

@testable import Coffer

@Suite("Keyring and key rotation")
struct KeyringTests {
    @Test("Keys are added, made current and removed with typed errors for misuse")
    func management() throws {
        let keyring = Keyring()
        #expect(keyring.currentKeyID == nil)
        #expect(errorCode { try keyring.addKey(SymmetricKey(size: .bits128), id: 1) } == .invalidKey)
        try keyring.addKey(SymmetricKey(size: .bits256), id: 2)
        try keyring.addKey(SymmetricKey(size: .bits256), id: 1)
        #expect(errorCode { try keyring.addKey(SymmetricKey(size: .bits256), id: 1) } == .duplicateKeyID)
        #expect(keyring.keyIDs == [1, 2])
        #expect(keyring.contains(2))
        #expect(!keyring.contains(3))
        #expect(errorCode { try keyring.setCurrent(3) } == .unknownKeyID)
        try keyring.setCurrent(2)
        #expect(keyring.currentKeyID == 2)
        #expect(errorCode { try keyring.removeKey(2) } == .keyInUse)
        #expect(errorCode { try keyring.removeKey(3) } == .unknownKeyID)
        try keyring.removeKey(1)
        #expect(keyring.keyIDs == [2])
    }

    @Test("Errors never contain key bytes")
    func errorsHideKeys() throws {
        let bytes = Data((0..<32).map { UInt8($0 &* 7 &+ 3) })
        let keyring = try Keyring(key: SymmetricKey(data: bytes), id: 1)
        let error = serializationError { try keyring.addKey(SymmetricKey(data: bytes), id: 1) }
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(error?.description.contains(hex) == false)
        #expect(error?.description.contains(bytes.base64EncodedString()) == false)
    }

    @Test("Rotation: old blobs stay readable and report that they need re-encryption")
    func rotation() throws {
        let keyring = try makeKeyring(id: 1)
        let chain = SerializerChain(codec: .string, stages: [.zlib(), .aesGCM(keyring)])
        let old = try chain.serialize("written under key 1", collection: "c", key: "a")
        #expect(!chain.needsReencryption(old))

        try keyring.addKey(SymmetricKey(size: .bits256), id: 2)
        try keyring.setCurrent(2)
        let new = try chain.serialize("written under key 2", collection: "c", key: "b")
        #expect(try BlobHeader(parsing: new).records.last?.parameters.littleEndianUInt32() == 2)
        #expect(try chain.deserialize(old, collection: "c", key: "a") as? String == "written under key 1")
        #expect(chain.needsReencryption(old))
        #expect(!chain.needsReencryption(new))

        // What the background job does: read, write back, and the row is current.
        let rewritten = try chain.serialize(
            try chain.deserialize(old, collection: "c", key: "a"), collection: "c", key: "a")
        #expect(!chain.needsReencryption(rewritten))
        try keyring.removeKey(1)
        #expect(errorCode { try chain.deserialize(old, collection: "c", key: "a") } == .unknownKeyID)
        #expect(try chain.deserialize(rewritten, collection: "c", key: "a") as? String == "written under key 1")
    }

    @Test("needsReencryption selects plaintext rows of an encrypting chain and nothing else")
    func needsReencryptionEdgeCases() throws {
        let keyring = try makeKeyring()
        let encrypting = SerializerChain(codec: .data, stages: [.zlib(), .aesGCM(keyring)])
        let compressing = SerializerChain(codec: .data, stages: [.zlib()])
        let plain = SerializerChain(codec: .data)
        let legacy = Data("legacy row".utf8)
        let compressed = try compressing.serialize(Data(count: 4000), collection: "c", key: "k")
        #expect(encrypting.needsReencryption(legacy))
        #expect(encrypting.needsReencryption(compressed))
        #expect(!encrypting.needsReencryption(Data(BlobHeader.magic + [7])))
        #expect(!compressing.needsReencryption(legacy))
        #expect(!compressing.needsReencryption(compressed))
        #expect(!plain.needsReencryption(legacy))
        let blob = try encrypting.serialize(Data(count: 4000), collection: "c", key: "k")
        #expect(!plain.needsReencryption(blob))
    }

    @Test("Keys rotate safely while other tasks encrypt and decrypt")
    func concurrentRotation() async throws {
        let keyring = try makeKeyring(id: 1)
        let chain = SerializerChain(codec: .string, stages: [.aesGCM(keyring)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for index in 0..<300 {
                        let key = "\(worker)-\(index)"
                        let blob = try chain.serialize(key, collection: "c\(worker)", key: key)
                        let back = try chain.deserialize(blob, collection: "c\(worker)", key: key) as? String
                        #expect(back == key)
                    }
                }
            }
            group.addTask {
                for id in Keyring.KeyID(2)...20 {
                    try keyring.addKey(SymmetricKey(size: .bits256), id: id)
                    try keyring.setCurrent(id)
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        #expect(keyring.currentKeyID == 20)
    }

    @Test("Removing a key forgets its cached subkeys")
    func removalClearsSubkeys() throws {
        let keyring = try makeKeyring(id: 1)
        try keyring.addKey(SymmetricKey(size: .bits256), id: 2)
        _ = try keyring.subkey(collection: "c", keyID: 2, algorithm: AESGCMStage.id)
        try keyring.removeKey(2)
        #expect(errorCode { try keyring.subkey(collection: "c", keyID: 2, algorithm: AESGCMStage.id) } == .unknownKeyID)
        #expect(keyring.state.withLock { $0.subkeys.keys.allSatisfy { $0.keyID != 2 } })
    }
}
