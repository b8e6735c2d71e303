import Foundation

/// The fixed secrets the fixtures are written with.
///
/// They are committed on purpose: a fixture is only useful when anyone can open it. Each key has
/// its own byte pattern, so a fixture opened with the wrong one of them fails loudly.
enum FixtureKeys {
    /// The passphrase of the passphrase-keyed fixtures.
    static let passphrase = "coffer fixture passphrase"
    /// A passphrase that opens nothing.
    static let wrongPassphrase = "not the fixture passphrase"
    /// The raw SQLCipher key of the raw-keyed fixtures: bytes 00…1f.
    static let rawKey = Data((0..<32).map { UInt8($0) })
    /// A second raw key (e0…ff with the index mixed in): the re-keyed file, and a wrong key.
    static let otherRawKey = Data((0..<32).map { UInt8(0xE0 ^ ($0 * 7 & 0xFF)) })
    /// The 16-byte salt given with the raw key: bytes a0…af.
    static let salt = Data((0..<16).map { UInt8(0xA0 + $0) })
    /// The passphrase of the envelope key file.
    static let keyFilePassphrase = "coffer fixture key file passphrase"
    /// The data key the envelope key file wraps: bytes 40…5f.
    static let keyFileDataKey = Data((0..<32).map { UInt8(0x40 + $0) })
    /// Value-encryption master key with id 1: 32 × 0x11.
    static let keyringKey1 = Data(repeating: 0x11, count: 32)
    /// Value-encryption master key with id 2: 32 × 0x22.
    static let keyringKey2 = Data(repeating: 0x22, count: 32)
}
