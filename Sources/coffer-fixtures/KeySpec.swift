import Coffer
import Foundation

/// How a fixture is keyed, as the manifest records it (the secrets are test data).
enum KeySpec: Encodable, Sendable {
    /// No key: an unencrypted file.
    case none
    /// A SQLCipher passphrase (UTF-8).
    case passphrase(String)
    /// A raw 256-bit key.
    case raw(Data)
    /// A raw key with the 16-byte salt given when the file was created.
    case rawWithSalt(Data, salt: Data)
    /// An envelope key file (a path relative to `Fixtures/`) and its passphrase.
    case keyFile(path: String, passphrase: String)

    private enum CodingKeys: String, CodingKey {
        case kind, passphrase, hex, saltHex, path
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .none:
            try container.encode("none", forKey: .kind)
        case .passphrase(let text):
            try container.encode("passphrase", forKey: .kind)
            try container.encode(text, forKey: .passphrase)
        case .raw(let key):
            try container.encode("raw", forKey: .kind)
            try container.encode(Hex.string(key), forKey: .hex)
        case .rawWithSalt(let key, let salt):
            try container.encode("rawWithSalt", forKey: .kind)
            try container.encode(Hex.string(key), forKey: .hex)
            try container.encode(Hex.string(salt), forKey: .saltHex)
        case .keyFile(let path, let passphrase):
            try container.encode("keyFile", forKey: .kind)
            try container.encode(path, forKey: .path)
            try container.encode(passphrase, forKey: .passphrase)
        }
    }

    /// The Coffer key; `keyFileURL` maps a key file's manifest path to where it is on disk.
    func databaseKey(keyFileURL: (String) -> URL) -> DatabaseKey? {
        switch self {
        case .none: nil
        case .passphrase(let text): .passphrase(Data(text.utf8))
        case .raw(let key): .raw(key)
        case .rawWithSalt(let key, let salt): .raw(key: key, salt: salt)
        case .keyFile(let path, let passphrase):
            .keyFile(keyFileURL(path), passphrase: Data(passphrase.utf8))
        }
    }
}

/// SQLCipher settings as the manifest records them; nil fields are Coffer's automatic choice.
struct CipherSpec: Encodable, Sendable {
    var pageSize: Int?
    var kdfIterations: Int?
    var useHMAC: Bool?
    /// Recorded only for SQLCipher 4 settings.
    var formatVersion: Int?

    /// Coffer's settings.
    var settings: CipherSettings {
        var settings = CipherSettings(pageSize: pageSize, kdfIterations: kdfIterations, useHMAC: useHMAC)
        if let formatVersion { settings.formatVersion = formatVersion }
        return settings
    }
}
