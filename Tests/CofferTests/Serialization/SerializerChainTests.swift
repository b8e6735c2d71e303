import Foundation
import PropertyBased
import Testing

@testable import Coffer

@Suite("Serializer chains")
struct SerializerChainTests {
    @Test(
        "Every chain shape round-trips random values",
        arguments: CodecKind.allCases, ChainShape.allCases)
    func roundTrip(codec: CodecKind, shape: ChainShape) async throws {
        let keyring = try makeKeyring()
        let chain = SerializerChain(codec: codec.serializer, stages: shape.stages(keyring: keyring))
        await propertyCheck(count: 100, input: Generators.note, Generators.text) { note, key in
            let blob = try chain.serialize(note, collection: "notes", key: key)
            #expect(try chain.deserialize(blob, collection: "notes", key: key) as? ChainNote == note)
            let codecBytes = try codec.serializer.encode(note)
            // A header appears exactly when a stage changed the bytes.
            #expect(BlobHeader.hasMagic(blob) == (blob != codecBytes))
            if shape.encrypts { #expect(blob != codecBytes) }
            if shape == .plain { #expect(blob == codecBytes) }
        }
    }

    @Test("Every chain shape round-trips random bytes through the data codec", arguments: ChainShape.allCases)
    func roundTripBytes(shape: ChainShape) async throws {
        let keyring = try makeKeyring()
        let chain = SerializerChain(codec: .data, stages: shape.stages(keyring: keyring))
        await propertyCheck(count: 200, input: Generators.bytes) { data throws in
            let blob = try chain.serialize(data, collection: "c", key: "k")
            #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == data)
        }
    }

    @Test("A chain without stages writes exactly the codec's bytes")
    func codecOnlyHasNoHeader() throws {
        let note = ChainNote(id: 1, title: "a", body: String(repeating: "b", count: 2000), tags: [], score: nil)
        let chain = SerializerChain(codec: .codable(ChainNote.self))
        #expect(
            try chain.serialize(note, collection: "c", key: "k")
                == (try Serializer.codable(ChainNote.self).encode(note)))
        // Even bytes that look like a header are the codec's business in a stage-less chain.
        let lookalike = Data(BlobHeader.magic + [9, 9, 9])
        let raw = SerializerChain(codec: .data)
        #expect(try raw.serialize(lookalike, collection: "c", key: "k") == lookalike)
        #expect(try raw.deserialize(lookalike, collection: "c", key: "k") as? Data == lookalike)
    }

    @Test("Chains with stages read header-less legacy blobs as codec bytes (encrypting ones only to migrate)")
    func legacyBlobsStayReadable() throws {
        let keyring = try makeKeyring()
        let note = ChainNote(id: 3, title: "old", body: "written by YapDatabase", tags: ["x"], score: 1)
        let legacy = try Serializer.codable(ChainNote.self).encode(note)
        for shape in ChainShape.allCases {
            let stages = shape.stages(keyring: keyring)
            let chain = SerializerChain(codec: .codable(ChainNote.self), stages: stages)
            let migrating = SerializerChain(
                codec: .codable(ChainNote.self), stages: stages, acceptsUnencryptedBlobs: true)
            #expect(try migrating.deserialize(legacy, collection: "c", key: "k") as? ChainNote == note, "\(shape)")
            if chain.encrypts {
                #expect(errorCode { try chain.deserialize(legacy, collection: "c", key: "k") } == .unencryptedBlob)
            } else {
                #expect(try chain.deserialize(legacy, collection: "c", key: "k") as? ChainNote == note, "\(shape)")
            }
        }
    }

    @Test("Codec bytes that start with the magic are escaped by an empty header")
    func magicLookalikeIsEscaped() throws {
        let chain = SerializerChain(codec: .data, stages: [.zlib()])
        let lookalike = Data(BlobHeader.magic + [1, 0, 0])
        let blob = try chain.serialize(lookalike, collection: "c", key: "k")
        let header = try BlobHeader(parsing: blob)
        #expect(header.records.isEmpty)
        #expect(header.flags.isEmpty)
        #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == lookalike)
    }

    @Test("A strict chain refuses blobs that are not encrypted")
    func strictChainRefusesPlaintext() throws {
        let keyring = try makeKeyring()
        let strict = SerializerChain(
            codec: .data, stages: [.zlib(threshold: 0), .aesGCM(keyring)], acceptsUnencryptedBlobs: false)
        let compressedOnly = try SerializerChain(codec: .data, stages: [.zlib(threshold: 0)])
            .serialize(Data(repeating: 7, count: 500), collection: "c", key: "k")
        #expect(errorCode { try strict.deserialize(Data("plain".utf8), collection: "c", key: "k") } == .unencryptedBlob)
        #expect(errorCode { try strict.deserialize(compressedOnly, collection: "c", key: "k") } == .unencryptedBlob)
        let blob = try strict.serialize(Data(repeating: 7, count: 500), collection: "c", key: "k")
        #expect(try strict.deserialize(blob, collection: "c", key: "k") as? Data == Data(repeating: 7, count: 500))
    }

    @Test("Compressed rows stay readable after zlib is removed from a chain with other stages")
    func zlibIsAlwaysReadable() throws {
        let keyring = try makeKeyring()
        let value = Data(repeating: 1, count: 4000)
        let blob = try SerializerChain(codec: .data, stages: [.zlib()]).serialize(value, collection: "c", key: "k")
        let encrypted = try SerializerChain(codec: .data, stages: [.zlib(), .aesGCM(keyring)])
            .serialize(value, collection: "c", key: "k")
        let encrypting = SerializerChain(codec: .data, stages: [.aesGCM(keyring)])
        #expect(try encrypting.deserialize(encrypted, collection: "c", key: "k") as? Data == value)
        let migrating = SerializerChain(codec: .data, stages: [.aesGCM(keyring)], acceptsUnencryptedBlobs: true)
        #expect(try migrating.deserialize(blob, collection: "c", key: "k") as? Data == value)
    }

    @Test("A chain that encrypts refuses unencrypted and header-damaged blobs unless told to migrate")
    func encryptingChainsAreStrictByDefault() throws {
        let keyring = try makeKeyring()
        let value = Data("secret".utf8)
        let plain = SerializerChain(codec: .data)
        let strict = SerializerChain(codec: .data, stages: [.aesGCM(keyring)])
        #expect(!strict.acceptsUnencryptedBlobs)
        let sealed = try strict.serialize(value, collection: "c", key: "k")
        var damagedMagic = sealed
        damagedMagic[damagedMagic.startIndex] ^= 0xFF
        let compressedOnly = try SerializerChain(codec: .data, stages: [.zlib(threshold: 0)])
            .serialize(Data(repeating: 7, count: 500), collection: "c", key: "k")
        for blob in [Data("planted".utf8), damagedMagic, compressedOnly, Data()] {
            #expect(errorCode { try strict.deserialize(blob, collection: "c", key: "k") } == .unencryptedBlob)
        }
        #expect(try strict.deserialize(sealed, collection: "c", key: "k") as? Data == value)
        // Chains without encryption read everything as before; the migration setting reads plaintext.
        #expect(try plain.deserialize(Data("planted".utf8), collection: "c", key: "k") as? Data == Data("planted".utf8))
        let migrating = SerializerChain(codec: .data, stages: [.aesGCM(keyring)], acceptsUnencryptedBlobs: true)
        #expect(
            try migrating.deserialize(Data("legacy".utf8), collection: "c", key: "k") as? Data == Data("legacy".utf8))
    }

    @Test("A blob from a stage the chain lacks is unknownStage")
    func unknownStage() throws {
        let keyring = try makeKeyring()
        let blob = try SerializerChain(codec: .data, stages: [.aesGCM(keyring)])
            .serialize(Data("x".utf8), collection: "c", key: "k")
        let other = SerializerChain(codec: .data, stages: [.chaChaPoly(keyring)])
        #expect(errorCode { try other.deserialize(blob, collection: "c", key: "k") } == .unknownStage)
    }

    @Test("Unusable stage lists are reported on every call")
    func invalidConfiguration() throws {
        let keyring = try makeKeyring()
        let chains = [
            SerializerChain(codec: .data, stages: [.zlib(), .zlib()]),
            SerializerChain(codec: .data, stages: [ByteFlipStage(stageID: 0)]),
            SerializerChain(codec: .data, stages: (0..<9).map { ByteFlipStage(stageID: UInt8(200 + $0)) }),
            SerializerChain(codec: .data, stages: [.zlib(threshold: 0, level: 42)]),
            SerializerChain(codec: .data, stages: [.aesGCM(keyring), .aesGCM(keyring)]),
        ]
        for chain in chains {
            #expect(
                errorCode { try chain.serialize(Data(count: 600), collection: "c", key: "k") } == .invalidConfiguration)
        }
        #expect(
            errorCode { try chains[0].deserialize(Data(count: 10), collection: "c", key: "k") } == .invalidConfiguration
        )
    }

    @Test("Custom stages plug in beside the built-in ones")
    func customStage() throws {
        let keyring = try makeKeyring()
        let chain = SerializerChain(codec: .string, stages: [ByteFlipStage(stageID: 200), .aesGCM(keyring)])
        let blob = try chain.serialize("hello", collection: "c", key: "k")
        let header = try BlobHeader(parsing: blob)
        #expect(header.records.map(\.stageID) == [200, AESGCMStage.id])
        #expect(header.flags == .encrypted)
        #expect(try chain.deserialize(blob, collection: "c", key: "k") as? String == "hello")

        let failing = SerializerChain(codec: .string, stages: [FailingStage()])
        let error = serializationError { try failing.serialize("x", collection: "c", key: "k") }
        #expect(error?.code == .stageFailed)
        #expect(error?.stage == "failing")
    }

    @Test("Errors name the row and the stage")
    func errorsNameTheRow() throws {
        let keyring = try makeKeyring()
        let chain = SerializerChain(codec: .data, stages: [.aesGCM(keyring)])
        let blob = try chain.serialize(Data("v".utf8), collection: "notes", key: "n1")
        let error = serializationError { try chain.deserialize(blob, collection: "notes", key: "n2") }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.stage == "aes-256-gcm")
        #expect(error?.collection == "notes")
        #expect(error?.key == "n2")
        #expect(error?.description.contains("notes/n2") == true)
        let mismatch = serializationError { try chain.serialize("not data", collection: "notes", key: "n3") }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.key == "n3")
    }
}

/// A custom stage that flips every bit: a transform with no parameters.
struct ByteFlipStage: SerializationStage {
    var stageID: UInt8
    var name: String { "flip" }
    var kind: SerializationStageKind { .transform }

    func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput? {
        SerializationStageOutput(parameters: Data(), payload: Data(input.map { ~$0 }))
    }

    func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data {
        Data(payload.map { ~$0 })
    }
}

/// A custom stage that always throws an error of its own type.
struct FailingStage: SerializationStage {
    struct Failure: Error {}
    var stageID: UInt8 { 201 }
    var name: String { "failing" }
    var kind: SerializationStageKind { .transform }

    func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput? {
        throw Failure()
    }

    func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data {
        throw Failure()
    }
}
