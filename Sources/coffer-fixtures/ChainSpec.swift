import Coffer
import Crypto
import Foundation

/// One stage of a chain as the manifest names it.
enum StageSpec: Encodable, Sendable {
    /// zlib; `decompressionLimit` nil is the stage's default (64 MiB).
    case zlib(decompressionLimit: Int?)
    /// AES-256-GCM over the keyring of that name in the entry's `keyrings`.
    case aesGCM(keyring: String)

    private enum CodingKeys: String, CodingKey {
        case stage, decompressionLimit, keyring
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .zlib(let limit):
            try container.encode("zlib", forKey: .stage)
            try container.encodeIfPresent(limit, forKey: .decompressionLimit)
        case .aesGCM(let keyring):
            try container.encode("aes-256-gcm", forKey: .stage)
            try container.encode(keyring, forKey: .keyring)
        }
    }

    /// The Coffer stage, with its keyring taken from `keyrings`.
    /// - Throws: ``GeneratorError`` for a keyring the entry does not define.
    func stage(keyrings: [String: Keyring]) throws -> any SerializationStage {
        switch self {
        case .zlib(let limit):
            return ZlibStage(decompressionLimit: limit ?? ZlibStage.defaultDecompressionLimit)
        case .aesGCM(let name):
            guard let keyring = keyrings[name] else { throw GeneratorError("no keyring named \(name)") }
            return AESGCMStage(keyring: keyring)
        }
    }
}

/// A serializer chain as the manifest names it: a codec and its stages.
struct ChainSpec: Encodable, Sendable {
    var codec: FixtureCodec
    var stages: [StageSpec] = []
    /// Recorded only when set; absent means the library's default (strict for a chain that encrypts).
    var acceptsUnencryptedBlobs: Bool?

    /// The Coffer chain for the object or metadata column.
    /// - Throws: ``GeneratorError`` for an unknown keyring.
    func chain(role: SerializerChain.Role, keyrings: [String: Keyring]) throws -> SerializerChain {
        SerializerChain(
            codec: codec.serializer, stages: try stages.map { try $0.stage(keyrings: keyrings) }, role: role,
            acceptsUnencryptedBlobs: acceptsUnencryptedBlobs ?? false)
    }
}

/// The chains of one collection.
struct CollectionSerializers: Encodable, Sendable {
    var collection: String
    var object: ChainSpec
    var metadata: ChainSpec?
}

/// A value-encryption keyring: master keys by id and the current one.
struct KeyringSpec: Encodable, Sendable {
    /// One master key.
    struct Key: Encodable, Sendable {
        var id: UInt32
        var hex: String
    }

    var current: UInt32
    var keys: [Key]

    /// Builds the keyring.
    /// - Throws: ``GeneratorError`` or the keyring's ``SerializationError``.
    func keyring() throws -> Keyring {
        let keyring = Keyring()
        for key in keys {
            try keyring.addKey(SymmetricKey(data: try Hex.data(key.hex)), id: key.id)
        }
        try keyring.setCurrent(current)
        return keyring
    }
}

extension Database {
    /// Registers the chains of `serializers` for their collections.
    /// - Throws: ``GeneratorError`` for an unknown keyring.
    func register(_ serializers: [CollectionSerializers], keyrings: [String: Keyring]) throws {
        for entry in serializers {
            registerObjectSerializer(
                try entry.object.chain(role: .object, keyrings: keyrings), forCollection: entry.collection)
            if let metadata = entry.metadata {
                registerMetadataSerializer(
                    try metadata.chain(role: .metadata, keyrings: keyrings), forCollection: entry.collection)
            }
        }
    }
}
