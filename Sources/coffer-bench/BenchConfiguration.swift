/// One setting under which every workload is measured: cipher and cache settings plus the kind of key.
///
/// The C baseline and Coffer always run under the same configuration, so a ratio compares storage code, not settings.
struct BenchConfiguration: Sendable {
    /// The two settings BENCHMARKS.md measures.
    enum Preset: String, CaseIterable, Sendable {
        /// SQLCipher 3.x library defaults: 1024-byte pages, 2,000 KiB page cache, 64,000 KDF iterations, HMAC on.
        case defaults
        /// Coffer's recommended settings: 4096-byte pages and a page cache sized to the working set.
        case recommended
    }

    /// How the database is keyed.
    enum KeyKind: String, CaseIterable, Sendable {
        /// A passphrase: SQLCipher derives the page key with PBKDF2-HMAC-SHA1 on every open.
        case passphrase
        /// A raw 256-bit key given as `x'<64 hex>'`: no key derivation.
        case raw
    }

    /// SQLCipher 3.x's default page size, used when a preset leaves the page size alone.
    static let libraryPageSize = 1024
    /// SQLite's default page cache (`cache_size = -2000`), in KiB.
    static let libraryCacheKiB = 2000
    /// SQLCipher 3.x's default PBKDF2 iteration count.
    static let libraryKDFIterations = 64_000
    /// The PBKDF2 iteration count of smoke runs, set explicitly on both sides: smoke runs check that every
    /// workload works, and dozens of opens at 64,000 iterations would dominate their time.
    static let smokeKDFIterations = 4_000

    /// Which preset this is.
    let preset: Preset
    /// Which key kind this is.
    let keyKind: KeyKind
    /// The number of records the configuration was sized for (the recommended cache follows it).
    let recordCount: Int
    /// The page size to set, or nil to leave the library default in place.
    let pageSize: Int?
    /// The page cache size in KiB to set, or nil to leave the library default in place.
    let cacheKiB: Int?
    /// The KDF iteration count to set, or nil to leave the library default in place.
    let kdfIterations: Int?
    /// Whether to set per-page HMAC on or off, or nil to leave the library default (on) in place.
    let useHMAC: Bool?

    /// The configuration of `preset` with `keyKind` for a run of `recordCount` records.
    ///
    /// The recommended cache is 64 MiB, grown by 640 bytes per record above 100,000 records, which keeps the whole
    /// file (about 300 bytes per record at 4096-byte pages) in the page cache. A `smoke` configuration sets
    /// `smokeKDFIterations` explicitly.
    init(preset: Preset, keyKind: KeyKind, recordCount: Int, smoke: Bool = false) {
        self.preset = preset
        self.keyKind = keyKind
        self.recordCount = recordCount
        switch preset {
        case .defaults:
            pageSize = nil
            cacheKiB = nil
        case .recommended:
            pageSize = 4096
            cacheKiB = max(64 * 1024, recordCount * 640 / 1024)
        }
        kdfIterations = smoke ? Self.smokeKDFIterations : nil
        useHMAC = nil
    }

    /// The page size in effect, default included.
    var effectivePageSize: Int { pageSize ?? Self.libraryPageSize }
    /// The page cache size in effect in KiB, default included.
    var effectiveCacheKiB: Int { cacheKiB ?? Self.libraryCacheKiB }
    /// The KDF iteration count in effect, default included (it only matters for passphrase keys).
    var effectiveKDFIterations: Int { kdfIterations ?? Self.libraryKDFIterations }
    /// Whether per-page HMAC is in effect, default included.
    var effectiveHMAC: Bool { useHMAC ?? true }

    /// The `settings=… key=…` fields that end every figure line of this configuration.
    var label: String { "settings=\(preset.rawValue) key=\(keyKind.rawValue)" }

    /// A directory-name-safe name of this configuration.
    var slug: String { "\(preset.rawValue)-\(keyKind.rawValue)" }
}
