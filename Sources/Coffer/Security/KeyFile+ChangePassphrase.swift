public import Foundation

extension KeyFile {
    /// Changes the passphrase of the key file at `url` in place: re-wraps the data key and rewrites the small file
    /// atomically.
    ///
    /// The database is not touched, so this takes the same time for any database size.
    /// - Throws: ``KeyFileError`` (`.wrongPassphrase` when `old` opens no slot, `.damaged`, `.io`).
    public static func changePassphrase(
        at url: URL, from old: some DataProtocol, to new: some DataProtocol
    ) throws(KeyFileError) {
        try KeyFile.read(from: url).changingPassphrase(from: old, to: new).write(to: url)
    }
}
