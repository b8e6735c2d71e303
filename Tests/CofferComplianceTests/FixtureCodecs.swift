import Coffer
import CofferFixtureSupport
import Crypto
import Foundation

/// Turns the manifest's names into Coffer objects: codecs, chains, keyrings, keys, settings.
enum FixtureCodecs {
    /// The codec named `name` (`json:<Type>`, `plist:<Type>`, `timestamp`, `string`, `data`).
    /// - Throws: ``FixtureFailure`` for an unknown name.
    static func serializer(_ name: String) throws -> Serializer {
        switch name {
        case "json:Note": .codable(Note.self)
        case "json:NoteMeta": .codable(NoteMeta.self)
        case "json:TaskItem": .codable(TaskItem.self)
        case "json:Secret": .codable(Secret.self)
        case "json:CredentialItem": .codable(CredentialItem.self)
        case "plist:Settings": .propertyList(Settings.self)
        case "timestamp": .timestamp
        case "string": .string
        case "data": .data
        default: throw FixtureFailure("unknown codec \(name)")
        }
    }

    /// A decoded value as the manifest records it.
    /// - Throws: ``FixtureFailure`` when the value is not of the codec's type.
    static func json(_ value: any Sendable, codec: String) throws -> JSONValue {
        func typed<T: Encodable>(_ type: T.Type) throws -> JSONValue {
            guard let typed = value as? T else { throw FixtureFailure("\(codec) decoded a \(Swift.type(of: value))") }
            return try JSONValue.from(typed)
        }
        switch codec {
        case "json:Note": return try typed(Note.self)
        case "json:NoteMeta": return try typed(NoteMeta.self)
        case "json:TaskItem": return try typed(TaskItem.self)
        case "json:Secret": return try typed(Secret.self)
        case "json:CredentialItem": return try typed(CredentialItem.self)
        case "plist:Settings": return try typed(Settings.self)
        case "timestamp":
            guard let date = value as? Date else { throw FixtureFailure("timestamp decoded a \(type(of: value))") }
            return .number(date.timeIntervalSinceReferenceDate)
        case "string":
            guard let text = value as? String else { throw FixtureFailure("string decoded a \(type(of: value))") }
            return .string(text)
        case "data":
            guard let bytes = value as? Data else { throw FixtureFailure("data decoded a \(type(of: value))") }
            return .string(Hex.string(bytes))
        default:
            throw FixtureFailure("unknown codec \(codec)")
        }
    }

    /// The chain a spec describes.
    /// - Throws: ``FixtureFailure`` for an unknown codec, stage or keyring.
    static func chain(
        _ spec: FixtureChain, role: SerializerChain.Role, keyrings: [String: Keyring]
    ) throws -> SerializerChain {
        let stages: [any SerializationStage] = try (spec.stages ?? []).map { stage in
            switch stage.stage {
            case "zlib":
                return ZlibStage(decompressionLimit: stage.decompressionLimit ?? ZlibStage.defaultDecompressionLimit)
            case "aes-256-gcm":
                guard let name = stage.keyring, let keyring = keyrings[name] else {
                    throw FixtureFailure("aes-256-gcm stage without a known keyring")
                }
                return AESGCMStage(keyring: keyring)
            default:
                throw FixtureFailure("unknown stage \(stage.stage)")
            }
        }
        // Absent means the library's default: a chain that encrypts refuses unencrypted blobs.
        return SerializerChain(
            codec: try serializer(spec.codec), stages: stages, role: role,
            acceptsUnencryptedBlobs: spec.acceptsUnencryptedBlobs ?? false)
    }

    /// The keyring a spec describes.
    /// - Throws: ``FixtureFailure`` or ``SerializationError``.
    static func keyring(_ spec: FixtureKeyring) throws -> Keyring {
        let keyring = Keyring()
        for key in spec.keys { try keyring.addKey(SymmetricKey(data: try Hex.data(key.hex)), id: key.id) }
        try keyring.setCurrent(spec.current)
        return keyring
    }

    /// The Coffer key; `keyFileURL` maps a key file's manifest path to its copy.
    /// - Throws: ``FixtureFailure`` for bad hex.
    static func databaseKey(_ key: FixtureKey, keyFileURL: (String) -> URL) throws -> DatabaseKey? {
        switch key {
        case .none: nil
        case .passphrase(let text): .passphrase(Data(text.utf8))
        case .raw(let hex): .raw(try Hex.data(hex))
        case .rawWithSalt(let hex, let salt): .raw(key: try Hex.data(hex), salt: try Hex.data(salt))
        case .keyFile(let path, let passphrase): .keyFile(keyFileURL(path), passphrase: Data(passphrase.utf8))
        }
    }

    /// Coffer's cipher settings.
    static func cipher(_ spec: FixtureCipher?) -> CipherSettings {
        guard let spec else { return CipherSettings() }
        var settings = CipherSettings(pageSize: spec.pageSize, kdfIterations: spec.kdfIterations, useHMAC: spec.useHMAC)
        if let formatVersion = spec.formatVersion { settings.formatVersion = formatVersion }
        return settings
    }

    /// The manifest form of a Coffer error.
    static func error(_ error: DatabaseError) -> FixtureError {
        FixtureError(
            code: error.code.rawValue, serializationCode: (error.underlying as? SerializationError).map { "\($0.code)" }
        )
    }
}
