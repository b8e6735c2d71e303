import CofferFixtureSupport

/// One file of `Fixtures/`, as `manifest.json` records it: where it came from, how to open it,
/// and what opening it must give.
struct ManifestEntry: Encodable, Sendable {
    /// What kind of file this is.
    enum FileType: String, Encodable, Sendable {
        /// A database file (possibly damaged or empty).
        case database
        /// A `-wal` (or other) file that belongs beside a database and is copied with it.
        case sidecar
        /// An envelope key file.
        case keyFile
    }

    /// The path relative to `Fixtures/`.
    var path: String
    var type: FileType
    /// SHA-256 of the committed bytes: the suite checks the file never changes.
    var sha256: String
    var size: Int
    var origin: Origin
    /// Sidecar files copied beside the database under the same base name.
    var sidecars: [String]?
    /// The database a sidecar belongs to.
    var sidecarOf: String?
    /// The key the file was written with.
    var key: KeySpec?
    var cipher: CipherSpec?
    /// `PRAGMA user_version` of the file as committed.
    var formatVersion: Int?
    var keyrings: [String: KeyringSpec]?
    /// The chains to read the collections with.
    var serializers: [CollectionSerializers]?
    var secondaryIndexes: [IndexSpec]?
    /// What opening the file must give, one check per way of opening it.
    var checks: [Check]
}

/// Who made a fixture and how.
struct Origin: Encodable, Sendable {
    /// The committed generator (a program or a script under `Fixtures/generators/`).
    var generator: String
    var generatorVersion: String
    /// The software that wrote the database bytes (Coffer, the sqlcipher shell, …).
    var writer: String
    var writerVersion: String
    var sqlcipherVersion: String?
    var sqliteVersion: String?
    /// What was done, in words.
    var method: String
    /// The fixture this one was made from by byte surgery.
    var derivedFrom: String?
}

/// A secondary index persisted in a fixture.
struct IndexSpec: Encodable, Sendable {
    /// One column of the setup.
    struct Column: Encodable, Sendable {
        var name: String
        var type: String
    }

    var name: String
    var versionTag: String
    var columns: [Column]
    /// The indexed collections (nil: all).
    var allowedCollections: [String]?
}

/// One way of opening a fixture and what it must give; fields left out use the entry's.
struct Check: Encodable, Sendable {
    var name: String
    var key: KeySpec?
    var cipher: CipherSpec?
    var keyrings: [String: KeyringSpec]?
    /// Open the database without its sidecars (for the WAL fixture: the main file alone).
    var withoutSidecars: Bool?
    /// Encrypt the plaintext file with `Database.encryptPlaintextDatabase` first, then open the copy.
    var importPlaintext: ImportSpec?
    /// For key files: unwrap with this passphrase.
    var unwrapPassphrase: String?
    var expect: Expectation
    /// A known library bug this check currently hits; the suite records it as a known issue and
    /// fails once the bug is fixed, so the note is removed then.
    var knownIssue: String?
}

/// The key and settings of an encrypt-on-import check.
struct ImportSpec: Encodable, Sendable {
    var key: KeySpec
    var cipher: CipherSpec
}

/// What a check must observe.
///
/// Only the fields given are checked, except that `rows` and `rowErrors` together must list
/// every row of the database.
struct Expectation: Encodable, Sendable {
    /// `Database(url:options:)` must throw this.
    var openError: ErrorSpec?
    var snapshot: UInt64?
    var pageSize: Int?
    var fileStartsWithHex: String?
    var extensionNames: [String]?
    var rows: [RowSpec]?
    var rowErrors: [RowErrorSpec]?
    /// Reading every row must throw this (damage below the row level).
    var readError: ErrorSpec?
    var secondaryIndexes: [IndexContents]?
    /// Key files: the unwrapped data key, and the key file's public identifier.
    var dataKeyHex: String?
    var keyIdentifier: String?
    /// Key files: the `KeyFileError` code unwrapping must throw.
    var keyFileError: String?
}

/// A typed error: the `DatabaseError` code and, for `.serialization`, the `SerializationError` code.
struct ErrorSpec: Encodable, Sendable, Hashable {
    var code: String
    var serializationCode: String?
}

/// One row and its decoded values; the byte fields pin the stored blob.
struct RowSpec: Encodable, Sendable {
    var collection: String
    var key: String
    var object: JSONValue
    /// The whole stored object blob (codec-only blobs, which are deterministic).
    var objectBytesHex: String?
    /// The blob header up to the payload (staged blobs: the payload is random or zlib-version dependent).
    var objectHeaderHex: String?
    var metadata: JSONValue?
    var metadataBytesHex: String?
    var metadataHeaderHex: String?
}

/// A row whose object or metadata must fail to read with a typed error.
struct RowErrorSpec: Encodable, Sendable {
    var collection: String
    var key: String
    /// `object` or `metadata`.
    var column: String
    var error: ErrorSpec
}

/// The persisted entries of a secondary index, in rowid order.
struct IndexContents: Encodable, Sendable {
    /// One index entry.
    struct Entry: Encodable, Sendable {
        var collection: String
        var key: String
        var values: [String: JSONValue]
    }

    var name: String
    var entries: [Entry]
}
