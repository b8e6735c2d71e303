import Coffer
import Foundation

/// A key just created in a new file.
struct NewKey {
    /// The key, for the library.
    var key: DatabaseKey
    /// The file that holds it (wrapped or raw).
    var file: URL
    /// "key file …" / "raw key file …", for messages.
    var summary: String

    /// Throws unless `url` is free: a key file is never replaced.
    /// - Throws: ``CLIError`` `.alreadyExists`.
    static func checkAbsent(_ url: URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw CLIError(.alreadyExists, "\(url.path) already exists; refusing to replace a key file")
        }
    }

    /// Creates an envelope key file at `url` wrapping a new random key under `passphrase`.
    /// - Throws: ``KeyFileError`` (`.fileExists`, `.io`, …).
    /// - Complexity: One key derivation (scrypt, about 0.1 s).
    static func createKeyFile(at url: URL, passphrase: Passphrase) throws -> NewKey {
        let (_, dataKey) = try passphrase.withBytes { try KeyFile.create(at: url, passphrase: $0) }
        return NewKey(key: .raw(dataKey.withUnsafeBytes { Data($0) }), file: url, summary: "key file \(url.path)")
    }

    /// Creates a raw key file at `url` holding a new random key.
    /// - Throws: ``CLIError`` `.alreadyExists`, `.io`.
    static func createRawKeyFile(at url: URL) throws -> NewKey {
        NewKey(key: .raw(try RawKeyFile.create(at: url)), file: url, summary: "raw key file \(url.path)")
    }

    /// Removes the key file after the operation that was to use it failed.
    func discard() {
        try? FileManager.default.removeItem(at: file)
    }
}
