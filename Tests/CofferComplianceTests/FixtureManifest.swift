import CofferFixtureSupport

// The manifest's format: see Fixtures/README.md. Decoding is strict where a typo would
// silently weaken a check (unknown key kinds, codecs and stages are errors).

/// `Fixtures/manifest.json`.
struct FixtureManifest: Decodable, Sendable {
    var manifestVersion: Int
    var entries: [FixtureEntry]

    /// The entry for `path`.
    func entry(_ path: String) -> FixtureEntry? {
        entries.first { $0.path == path }
    }
}

/// One file under `Fixtures/`.
struct FixtureEntry: Decodable, Sendable {
    var path: String
    /// `database`, `sidecar` or `keyFile`.
    var type: String
    var sha256: String
    var size: Int
    var origin: FixtureOrigin
    var sidecars: [String]?
    var sidecarOf: String?
    var key: FixtureKey?
    var cipher: FixtureCipher?
    var formatVersion: Int?
    var keyrings: [String: FixtureKeyring]?
    var serializers: [FixtureSerializers]?
    var secondaryIndexes: [FixtureIndex]?
    var checks: [FixtureCheck]
}

/// Provenance; the suite requires the fields that say who made the file and how.
struct FixtureOrigin: Decodable, Sendable {
    var generator: String
    var generatorVersion: String
    var writer: String
    var writerVersion: String
    var sqlcipherVersion: String?
    var sqliteVersion: String?
    var method: String
    var derivedFrom: String?
}

/// How a database is keyed.
enum FixtureKey: Decodable, Sendable {
    case none
    case passphrase(String)
    case raw(hex: String)
    case rawWithSalt(hex: String, saltHex: String)
    case keyFile(path: String, passphrase: String)

    private enum CodingKeys: String, CodingKey {
        case kind, passphrase, hex, saltHex, path
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "none": self = .none
        case "passphrase": self = .passphrase(try container.decode(String.self, forKey: .passphrase))
        case "raw": self = .raw(hex: try container.decode(String.self, forKey: .hex))
        case "rawWithSalt":
            self = .rawWithSalt(
                hex: try container.decode(String.self, forKey: .hex),
                saltHex: try container.decode(String.self, forKey: .saltHex))
        case "keyFile":
            self = .keyFile(
                path: try container.decode(String.self, forKey: .path),
                passphrase: try container.decode(String.self, forKey: .passphrase))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container, debugDescription: "unknown key kind \(kind)")
        }
    }

    /// The key file this key needs, if any.
    var keyFilePath: String? {
        if case .keyFile(let path, _) = self { return path }
        return nil
    }
}

/// SQLCipher settings; nil fields are Coffer's automatic choice.
struct FixtureCipher: Decodable, Sendable {
    var pageSize: Int?
    var kdfIterations: Int?
    var useHMAC: Bool?
    var formatVersion: Int?
}

/// A value-encryption keyring.
struct FixtureKeyring: Decodable, Sendable {
    /// One master key.
    struct Key: Decodable, Sendable {
        var id: UInt32
        var hex: String
    }

    var current: UInt32
    var keys: [Key]
}

/// The chains of one collection.
struct FixtureSerializers: Decodable, Sendable {
    var collection: String
    var object: FixtureChain
    var metadata: FixtureChain?
}

/// A codec and its stages.
struct FixtureChain: Decodable, Sendable {
    var codec: String
    var stages: [FixtureStage]?
    var acceptsUnencryptedBlobs: Bool?
}

/// One stage: `zlib` (optional `decompressionLimit`) or `aes-256-gcm` (a `keyring` name).
struct FixtureStage: Decodable, Sendable {
    var stage: String
    var decompressionLimit: Int?
    var keyring: String?
}

/// A persisted secondary index.
struct FixtureIndex: Decodable, Sendable {
    /// One column.
    struct Column: Decodable, Sendable {
        var name: String
        var type: String
    }

    var name: String
    var versionTag: String
    var columns: [Column]
    var allowedCollections: [String]?
}

/// One way of opening a fixture.
struct FixtureCheck: Decodable, Sendable {
    var name: String
    var key: FixtureKey?
    var cipher: FixtureCipher?
    var keyrings: [String: FixtureKeyring]?
    var withoutSidecars: Bool?
    var importPlaintext: FixtureImport?
    var unwrapPassphrase: String?
    var expect: FixtureExpectation
    /// A library bug this check hits today, such as "a failed open modified …".
    ///
    /// The no-modification assertion then runs as a known issue, which fails the suite once the
    /// bug is fixed.
    var knownIssue: String?
}

/// Encrypt-on-import: the key and settings of the encrypted copy.
struct FixtureImport: Decodable, Sendable {
    var key: FixtureKey
    var cipher: FixtureCipher
}

/// What a check must observe.
struct FixtureExpectation: Decodable, Sendable {
    var openError: FixtureError?
    var snapshot: UInt64?
    var pageSize: Int?
    var fileStartsWithHex: String?
    var extensionNames: [String]?
    var rows: [FixtureRowSpec]?
    var rowErrors: [FixtureRowError]?
    var readError: FixtureError?
    var secondaryIndexes: [FixtureIndexContents]?
    var dataKeyHex: String?
    var keyIdentifier: String?
    var keyFileError: String?
}

/// A typed error.
struct FixtureError: Decodable, Sendable, Hashable, CustomStringConvertible {
    var code: String
    var serializationCode: String?

    var description: String { serializationCode.map { "\(code)/\($0)" } ?? code }
}

/// A row and its decoded values.
struct FixtureRowSpec: Decodable, Sendable {
    var collection: String
    var key: String
    var object: JSONValue
    var objectBytesHex: String?
    var objectHeaderHex: String?
    var metadata: JSONValue?
    var metadataBytesHex: String?
    var metadataHeaderHex: String?
}

/// A row column that must fail to read.
struct FixtureRowError: Decodable, Sendable {
    var collection: String
    var key: String
    var column: String
    var error: FixtureError
}

/// The entries of a secondary index.
struct FixtureIndexContents: Decodable, Sendable {
    /// One entry.
    struct Entry: Decodable, Sendable {
        var collection: String
        var key: String
        var values: [String: JSONValue]
    }

    var name: String
    var entries: [Entry]
}
