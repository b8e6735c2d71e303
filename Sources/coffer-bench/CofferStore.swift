import Coffer
import Foundation

/// How the Coffer suites open, configure, read back and close a database, so every suite matches the C baseline's
/// settings the same way.
enum CofferStore {
    /// The database file's name inside a suite's directory.
    static let fileName = "coffer.sqlite"

    /// The connection configuration of every timed workload except W6: object and metadata caches off, so each
    /// read really goes to SQLite (BENCHMARKS.md W3: "no application-level cache").
    static let uncached = ConnectionConfig(
        objectCacheEnabled: false, objectCacheLimit: 0, metadataCacheEnabled: false, metadataCacheLimit: 0)

    /// The Coffer key that matches the C baseline's key kind: the same passphrase, or the same 32 raw bytes.
    static func key(for kind: BenchConfiguration.KeyKind) -> DatabaseKey {
        switch kind {
        case .passphrase: return .passphrase(Data(BenchKeys.passphrase))
        case .raw: return .raw(Data(BenchKeys.rawKey))
        }
    }

    /// Options matching `configuration`: the page size always explicit (Coffer's automatic size would be 4096),
    /// the page cache, KDF iterations and HMAC as configured, `synchronous = NORMAL`.
    static func options(
        for configuration: BenchConfiguration, key: DatabaseKey, run: RunOptions = RunOptions()
    ) -> DatabaseOptions {
        var options = DatabaseOptions()
        if let threshold = run.cofferWALTruncationBytes { options.walTruncationThreshold = threshold }
        options.key = key
        options.cipher = CipherSettings(
            pageSize: configuration.effectivePageSize, kdfIterations: configuration.kdfIterations,
            useHMAC: configuration.useHMAC)
        options.pageCacheKiB = configuration.cacheKiB
        options.synchronous = .normal
        return options
    }

    /// Opens (creating if needed) the database at `url` and registers the collection's codec.
    /// - Parameters:
    ///   - codable: `User` rows in `format` when true; raw `Data` rows (identity codec) when false.
    ///   - format: The Codable format: JSON for W1–W4, binary for W1b–W4b.
    /// - Throws: `DatabaseError` when the file cannot be opened.
    static func open(
        _ url: URL, _ configuration: BenchConfiguration, key: DatabaseKey? = nil, codable: Bool = true,
        format: CodableFormat = .json, run: RunOptions = RunOptions()
    ) throws -> Database {
        let database = try Database(
            url: url,
            options: options(for: configuration, key: key ?? Self.key(for: configuration.keyKind), run: run))
        register(database, codable: codable, format: format)
        return database
    }

    /// Registers the benchmark collection's codec.
    static func register(_ database: Database, codable: Bool, format: CodableFormat = .json) {
        if codable {
            database.registerCodable(User.self, forCollection: Records.collection, format: format)
        } else {
            database.registerData(forCollection: Records.collection)
        }
    }

    /// Reads `user-000000` and returns its age (W5's read), decoding a `User` or parsing raw bytes.
    /// - Throws: `DatabaseError` from reading.
    static func firstAge(_ connection: Connection, codable: Bool) throws -> Int? {
        let key = User.key(index: 0)
        return try connection.read { tx in
            if codable {
                return try tx.object(forKey: key, inCollection: Records.collection, as: User.self)?.age
            }
            return try tx.object(forKey: key, inCollection: Records.collection, as: Data.self).flatMap(RecordAge.parse)
        }
    }

    /// FNV-1a 64 over the stored value bytes in key order, and the number of values (untimed check).
    /// - Throws: `DatabaseError` from reading; `BenchError` when a listed key has no value.
    static func contentHash(_ connection: Connection) throws -> (hex: String, count: Int) {
        try connection.read { tx in
            var hash = FNV1a64()
            let keys = try tx.allKeys(inCollection: Records.collection).sorted {
                Array($0.utf8).lexicographicallyPrecedes($1.utf8)
            }
            for key in keys {
                guard let bytes = try tx.serializedObject(forKey: key, inCollection: Records.collection) else {
                    throw BenchError(.checkMismatch, "Coffer: key \(key) is listed but has no value")
                }
                hash.combine(bytes)
            }
            return (hash.hex, keys.count)
        }
    }

    /// The settings as the store reports them, plus how the suites use connections and caches.
    /// - Throws: `DatabaseError` from reading a pragma.
    static func effectiveSettings(_ database: Database, _ connection: Connection) throws -> [(
        key: String, value: String
    )] {
        [
            (key: "cipher_version", value: database.cipherVersion),
            (key: "page_size", value: String(try connection.pragmaPageSize())),
            (key: "cache_kib", value: database.options.pageCacheKiB.map(String.init) ?? "default(2000)"),
            (key: "kdf_iter", value: database.options.cipher.kdfIterations.map(String.init) ?? "default(64000)"),
            (key: "hmac", value: database.options.cipher.useHMAC.map { $0 ? "on" : "off" } ?? "default(on)"),
            (key: "synchronous", value: try connection.pragmaSynchronous()),
            (key: "auto_vacuum", value: try connection.pragmaAutoVacuum()),
            (key: "checkpoint", value: "coffer(autocheckpoint=0,background-passive-after-50ms-idle-at-most-5s-late)"),
            (key: "wal_truncation_threshold", value: String(database.options.walTruncationThreshold)),
        ]
    }
}
