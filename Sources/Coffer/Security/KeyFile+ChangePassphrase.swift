public import Foundation

extension KeyFile {
    /// Changes the passphrase of the key file at `url` in place: re-wraps the data key and rewrites the small file
    /// atomically.
    ///
    /// The database is not touched, so this takes the same time for any database size: the key
    /// derivations of ``changingPassphrase(from:to:parameters:)`` — two for a file with one slot,
    /// unwrapping with `old` and wrapping under `new` — and one small atomic write.
    /// - Throws: ``KeyFileError`` (`.wrongPassphrase` when `old` opens no slot, `.damaged`, `.io`).
    /// - Complexity: One key derivation per slot tried, plus one; a small file write with two `fsync`s.
    public static func changePassphrase(
        at url: URL, from old: some DataProtocol, to new: some DataProtocol
    ) throws(KeyFileError) {
        try KeyFile.read(from: url).changingPassphrase(from: old, to: new).write(to: url)
    }
}
