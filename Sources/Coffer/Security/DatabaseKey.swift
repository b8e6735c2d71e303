public import Foundation

/// How the database file is keyed for SQLCipher.
///
/// Prefer ``raw(_:)`` or ``keyFile(_:passphrase:)``: a full-entropy key costs nothing to apply,
/// while ``passphrase(_:)-enum.case`` runs SQLCipher's PBKDF2 (about 25 ms at 64,000 iterations) — once per
/// ``Database``, since Coffer keys later connections with the derived key.
public enum DatabaseKey: Sendable {
    /// A passphrase, stretched by SQLCipher's PBKDF2-HMAC-SHA1 with the file's salt.
    case passphrase(Data)
    /// A raw 256-bit key (exactly 32 bytes) used without key derivation, with an optional
    /// 16-byte salt for new files. Usually written ``raw(_:)`` or ``raw(key:salt:)``.
    case rawKey(Data, salt: Data?)
    /// An envelope key file: a random data key wrapped by a key derived from `passphrase`.
    case keyFile(URL, passphrase: Data)
    /// Candidates tried in order, newest first, so a crash in the middle of a key rotation
    /// never locks the user out. The closure runs once per ``Database`` open.
    case candidates(@Sendable () throws -> [DatabaseKey])

    /// A raw 256-bit key (exactly 32 bytes), used without key derivation.
    public static func raw(_ key: Data) -> DatabaseKey { .rawKey(key, salt: nil) }

    /// A raw 256-bit key plus the 16-byte salt SQLCipher writes at the start of a new file.
    public static func raw(key: Data, salt: Data) -> DatabaseKey { .rawKey(key, salt: salt) }

    /// A passphrase given as text.
    ///
    /// The `String` itself cannot be wiped from memory; prefer `Data`.
    public static func passphrase(_ text: String) -> DatabaseKey {
        .passphrase(Data(text.utf8))
    }
}

extension DatabaseKey {
    /// A short description for logs and errors that never includes key material.
    var kindDescription: String {
        switch self {
        case .passphrase: "passphrase"
        case .rawKey(let key, salt: nil): "raw key (\(key.count) bytes)"
        case .rawKey(let key, salt: _): "raw key with salt (\(key.count) bytes)"
        case .keyFile(let url, passphrase: _): "key file \(url.path)"
        case .candidates: "key candidates"
        }
    }
}
