import Crypto
import Foundation
import PropertyBased
import Testing

@testable import Coffer

/// The two built-in ciphers; every test here runs on both, which is the proof that the stage
/// protocol takes a second cipher without changes elsewhere.
enum Cipher: String, CaseIterable, Sendable, CustomStringConvertible {
    case aesGCM, chaChaPoly

    var description: String { rawValue }

    func stage(_ keyring: Keyring) -> any SerializationStage {
        switch self {
        case .aesGCM: .aesGCM(keyring)
        case .chaChaPoly: .chaChaPoly(keyring)
        }
    }
}

@Suite("Encryption stages")
struct AEADStageTests {
    static let canary = "CANARY-4f1c-secret-marker"

    @Test("Encrypted blobs round-trip and never contain the plaintext", arguments: Cipher.allCases, [false, true])
    func canaryIsAbsent(cipher: Cipher, compressed: Bool) throws {
        let keyring = try makeKeyring()
        let stages: [any SerializationStage] =
            compressed ? [.zlib(threshold: 0), cipher.stage(keyring)] : [cipher.stage(keyring)]
        let chain = SerializerChain(codec: .codable(ChainNote.self), stages: stages)
        let note = ChainNote(
            id: 1, title: Self.canary, body: String(repeating: Self.canary, count: 20), tags: [Self.canary], score: nil)
        let blob = try chain.serialize(note, collection: "notes", key: "n1")
        #expect(blob.range(of: Data(Self.canary.utf8)) == nil)
        #expect(blob.range(of: Data("CANARY".utf8)) == nil)
        #expect(try chain.deserialize(blob, collection: "notes", key: "n1") as? ChainNote == note)
        // The plain chain does store the canary: the search above would have found it.
        let plain = try SerializerChain(codec: .codable(ChainNote.self)).serialize(note, collection: "notes", key: "n1")
        #expect(plain.range(of: Data(Self.canary.utf8)) != nil)
    }

    @Test("A last AES-GCM stage writes the blob the generic stage path writes")
    func lastStageWritesTheSameLayout() throws {
        let keyring = try makeKeyring()
        let stages: [any SerializationStage] = [.zlib(threshold: 0), .aesGCM(keyring)]
        let chain = SerializerChain(codec: .data, stages: stages)
        let value = Data(String(repeating: "layout ", count: 40).utf8)
        let fused = try chain.serialize(value, collection: "c", key: "k")

        // The same steps one by one: zlib, then AES-GCM's own encode, then the chain's header.
        let zlibContext = SerializationStageContext(
            collection: "c", key: "k", role: .object, stageID: ZlibStage.id, precedingRecords: Data(),
            precedingCount: 0)
        let compressed = try #require(try stages[0].encode(value, context: zlibContext))
        var records = Data([ZlibStage.id, UInt8(compressed.parameters.count)]) + compressed.parameters
        let aesContext = SerializationStageContext(
            collection: "c", key: "k", role: .object, stageID: AESGCMStage.id, precedingRecords: records,
            precedingCount: 1)
        let sealed = try #require(try stages[1].encode(compressed.payload, context: aesContext))
        records += Data([AESGCMStage.id, UInt8(sealed.parameters.count)]) + sealed.parameters
        let generic = BlobHeader.assemble(
            flags: [.compressed, .encrypted], recordCount: 2, records: records, payload: sealed.payload)

        let fusedHeader = try BlobHeader(parsing: fused)
        #expect(fusedHeader == (try BlobHeader(parsing: generic)))
        #expect(fused.prefix(fusedHeader.payloadOffset) == generic.prefix(fusedHeader.payloadOffset))
        #expect(fused.count == generic.count)
        for blob in [fused, generic] {
            #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == value)
            #expect(errorCode { try chain.deserialize(blob, collection: "c", key: "other") } == .authenticationFailed)
        }
    }

    @Test("AES-GCM before another stage round-trips", arguments: Cipher.allCases)
    func encryptionNotLast(cipher: Cipher) throws {
        let encryption = cipher.stage(try makeKeyring())
        let chain = SerializerChain(codec: .string, stages: [encryption, ByteFlipStage(stageID: 200)])
        let blob = try chain.serialize("not last", collection: "c", key: "k")
        #expect(try BlobHeader(parsing: blob).records.map(\.stageID) == [encryption.stageID, 200])
        #expect(try chain.deserialize(blob, collection: "c", key: "k") as? String == "not last")
    }

    @Test("Each encryption uses a fresh nonce", arguments: Cipher.allCases)
    func freshNonces(cipher: Cipher) throws {
        let chain = SerializerChain(codec: .string, stages: [cipher.stage(try makeKeyring())])
        let first = try chain.serialize("same", collection: "c", key: "k")
        let second = try chain.serialize("same", collection: "c", key: "k")
        #expect(first != second)
        #expect(first.count == second.count)
        #expect(first.count == 7 + 6 + 12 + 4 + 16)
    }

    @Test("Any changed payload byte is authenticationFailed", arguments: Cipher.allCases)
    func tamperedPayload(cipher: Cipher) async throws {
        let chain = SerializerChain(
            codec: .codable(ChainNote.self), stages: [.zlib(threshold: 0), cipher.stage(try makeKeyring())])
        let note = ChainNote(id: 9, title: "tamper", body: String(repeating: "x", count: 300), tags: [], score: 2)
        let blob = try chain.serialize(note, collection: "c", key: "k")
        let payloadOffset = try BlobHeader(parsing: blob).payloadOffset
        let input = zip(Gen.int(in: payloadOffset..<blob.count), Gen.uint8(in: 1...255))
        await propertyCheck(count: 200, input: input) { offset, delta in
            var tampered = blob
            tampered[offset] &+= delta
            #expect(errorCode { try chain.deserialize(tampered, collection: "c", key: "k") } == .authenticationFailed)
        }
    }

    @Test("A changed record of an earlier stage is authenticationFailed", arguments: Cipher.allCases)
    func tamperedEarlierRecord(cipher: Cipher) throws {
        let chain = SerializerChain(codec: .data, stages: [.zlib(), cipher.stage(try makeKeyring())])
        let blob = try chain.serialize(Data(count: 5000), collection: "c", key: "k")
        var tampered = blob
        tampered[9] ^= 0x01  // the zlib record's recorded length
        #expect(errorCode { try chain.deserialize(tampered, collection: "c", key: "k") } == .authenticationFailed)
    }

    @Test("A blob moved to another row is authenticationFailed", arguments: Cipher.allCases)
    func movedBlob(cipher: Cipher) async throws {
        let chain = SerializerChain(codec: .string, stages: [cipher.stage(try makeKeyring())])
        await propertyCheck(count: 100, input: Generators.text, Generators.text) { collection, key in
            let blob = try chain.serialize("value", collection: collection, key: key)
            #expect(try chain.deserialize(blob, collection: collection, key: key) as? String == "value")
            #expect(
                errorCode { try chain.deserialize(blob, collection: collection, key: key + "x") }
                    == .authenticationFailed)
            #expect(
                errorCode { try chain.deserialize(blob, collection: collection + "x", key: key) }
                    == .authenticationFailed)
        }
        // Collection and key are length-prefixed, so moving a character across the boundary fails too.
        let blob = try chain.serialize("value", collection: "ab", key: "c")
        #expect(errorCode { try chain.deserialize(blob, collection: "a", key: "bc") } == .authenticationFailed)
    }

    @Test("Objects and metadata of one row cannot be swapped", arguments: Cipher.allCases)
    func objectAndMetadataAreIndependent(cipher: Cipher) throws {
        let keyring = try makeKeyring()
        let objects = SerializerChain(codec: .codable(ChainNote.self), stages: [.zlib(), cipher.stage(keyring)])
        let metadata = SerializerChain(codec: .timestamp, stages: [cipher.stage(keyring)], role: .metadata)
        let note = ChainNote(id: 5, title: "t", body: "b", tags: [], score: nil)
        let date = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let objectBlob = try objects.serialize(note, collection: "notes", key: "n")
        let metadataBlob = try metadata.serialize(date, collection: "notes", key: "n")
        #expect(try objects.deserialize(objectBlob, collection: "notes", key: "n") as? ChainNote == note)
        #expect(try metadata.deserialize(metadataBlob, collection: "notes", key: "n") as? Date == date)
        // Same codec and stages, other role: the swap fails authentication rather than decoding.
        let objectDates = SerializerChain(codec: .timestamp, stages: [cipher.stage(keyring)])
        #expect(
            errorCode { try objectDates.deserialize(metadataBlob, collection: "notes", key: "n") }
                == .authenticationFailed)
        #expect(
            errorCode { try metadata.deserialize(objectBlob, collection: "notes", key: "n") } == .authenticationFailed)
    }

    @Test("A payload too short for a nonce and tag is truncated", arguments: Cipher.allCases)
    func truncatedPayload(cipher: Cipher) throws {
        let chain = SerializerChain(codec: .data, stages: [cipher.stage(try makeKeyring())])
        let blob = try chain.serialize(Data(), collection: "c", key: "k")
        #expect(errorCode { try chain.deserialize(blob.dropLast(), collection: "c", key: "k") } == .truncated)
        #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == Data())
    }

    @Test("An unknown key id and a wrong key are told apart", arguments: Cipher.allCases)
    func unknownAndWrongKeys(cipher: Cipher) throws {
        let writer = try makeKeyring(id: 7)
        let blob = try SerializerChain(codec: .string, stages: [cipher.stage(writer)])
            .serialize("v", collection: "c", key: "k")
        let otherIDs = try makeKeyring(id: 8)
        let readerWithout = SerializerChain(codec: .string, stages: [cipher.stage(otherIDs)])
        #expect(errorCode { try readerWithout.deserialize(blob, collection: "c", key: "k") } == .unknownKeyID)
        let sameIDOtherKey = try makeKeyring(id: 7)
        let readerWrong = SerializerChain(codec: .string, stages: [cipher.stage(sameIDOtherKey)])
        #expect(errorCode { try readerWrong.deserialize(blob, collection: "c", key: "k") } == .authenticationFailed)
    }

    @Test("Writing without a current key is noCurrentKey", arguments: Cipher.allCases)
    func noCurrentKey(cipher: Cipher) {
        let chain = SerializerChain(codec: .string, stages: [cipher.stage(Keyring())])
        #expect(errorCode { try chain.serialize("v", collection: "c", key: "k") } == .noCurrentKey)
    }

    @Test("The two ciphers derive different subkeys from one master key")
    func subkeysAreSeparated() throws {
        let keyring = try makeKeyring()
        let aes = try keyring.subkey(collection: "c", keyID: 1, algorithm: AESGCMStage.id)
        let chacha = try keyring.subkey(collection: "c", keyID: 1, algorithm: ChaChaPolyStage.id)
        let otherCollection = try keyring.subkey(collection: "d", keyID: 1, algorithm: AESGCMStage.id)
        #expect(aes != chacha)
        #expect(aes != otherCollection)
        #expect(try keyring.subkey(collection: "c", keyID: 1, algorithm: AESGCMStage.id) == aes)
    }
}
