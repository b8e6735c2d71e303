/// SQLCipher's per-file settings: they must be the same every time a file is opened.
///
/// Leave a field `nil` to use the library default. SQLCipher 3.4.1 does not validate these
/// itself, so Coffer does (see DESIGN.md §3).
public struct CipherSettings: Sendable, Hashable {
    /// The page size in bytes: a power of two from 512 to 65536.
    ///
    /// `nil` means automatic: new files get 4096, existing files are tried with 4096 and then SQLCipher 3's 1024.
    public var pageSize: Int?
    /// PBKDF2 iterations for passphrase keys (SQLCipher 3 default: 64,000).
    public var kdfIterations: Int?
    /// Whether each page carries an HMAC (SQLCipher's default: on).
    ///
    /// Turning it off removes tamper detection.
    public var useHMAC: Bool?
    /// The SQLCipher file-format generation these settings describe (3 or 4).
    public var formatVersion: Int

    /// Creates settings; unspecified fields use the defaults.
    public init(pageSize: Int? = nil, kdfIterations: Int? = nil, useHMAC: Bool? = nil) {
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.useHMAC = useHMAC
        self.formatVersion = 3
    }

    /// SQLCipher 3.x defaults: 1024-byte pages, 64,000 PBKDF2-SHA1 iterations, HMAC-SHA1.
    public static let sqlcipher3 = CipherSettings(pageSize: 1024, kdfIterations: 64_000, useHMAC: true)

    /// SQLCipher 4.x defaults (4096-byte pages, 256,000 PBKDF2-SHA512 iterations, HMAC-SHA512).
    ///
    /// Opening with these throws ``DatabaseError/Code/unsupportedCipherSettings`` when the linked
    /// SQLCipher is 3.x, which cannot read or write the 4.x format.
    public static let sqlcipher4: CipherSettings = {
        var settings = CipherSettings(pageSize: 4096, kdfIterations: 256_000, useHMAC: true)
        settings.formatVersion = 4
        return settings
    }()

    /// Coffer's recommendation for new files: 4096-byte pages (see BENCHMARKS.md).
    public static let recommended = CipherSettings(pageSize: 4096)

    /// The page size new files get when ``pageSize`` is nil.
    static let automaticPageSize = 4096
    /// SQLCipher 3's page size, tried second for existing files when ``pageSize`` is nil.
    static let legacyPageSize = 1024

    /// Checks the settings against what the linked SQLCipher (major version `cipherMajor`) supports.
    /// - Throws: ``DatabaseError`` `.unsupportedCipherSettings`.
    func validate(cipherMajor: Int) throws {
        if let pageSize {
            guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
                throw DatabaseError(
                    .unsupportedCipherSettings, "page size \(pageSize) is not a power of two from 512 to 65536")
            }
        }
        if let kdfIterations, kdfIterations < 1 {
            throw DatabaseError(.unsupportedCipherSettings, "KDF iterations must be at least 1")
        }
        if formatVersion > cipherMajor {
            throw DatabaseError(
                .unsupportedCipherSettings,
                "SQLCipher \(formatVersion).x settings need SQLCipher \(formatVersion) or later; the linked library is \(cipherMajor).x"
            )
        }
    }
}
