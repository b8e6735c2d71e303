import CofferSQLite
public import Foundation

/// Encrypting an existing unencrypted file (for example a YapDatabase database made without SQLCipher).
extension Database {
    /// Writes an encrypted copy of the unencrypted SQLite database at `source` to `destination`,
    /// keyed with `key` and `cipher`; the rows of `source` are not modified.
    ///
    /// The copy is made with `sqlcipher_export` (the backup API would silently corrupt it),
    /// verified by reopening it with the key, fsynced, and renamed into place, so a failure
    /// never leaves a partial file at `destination`. Open the result with ``init(url:options:)``.
    /// - Complexity: reads and writes the whole database.
    /// - Throws: ``DatabaseError`` `.keyRequired` when `source` is already encrypted,
    ///   `.notADatabase`, `.misuse` (destination exists), `.invalidKey`, `.io`, `.corrupt`.
    public static func encryptPlaintextDatabase(
        at source: URL, to destination: URL, key: DatabaseKey, cipher: CipherSettings = .recommended
    ) throws {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw DatabaseError(.misuse, "the destination already exists; choose a new path", path: destination.path)
        }
        guard let candidate = try KeyCandidate.candidates(for: key).first else {
            throw DatabaseError(.invalidKey, "no key given", path: destination.path)
        }
        var settings = cipher
        if settings.pageSize == nil { settings.pageSize = CipherSettings.automaticPageSize }
        try settings.validate(cipherMajor: 3)
        let header = (try? FileHandle(forReadingFrom: source).read(upToCount: 16)) ?? nil
        guard let header, header.starts(with: Data("SQLite format 3".utf8)) else {
            let size = (try? FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int) ?? 0
            throw DatabaseError(
                size > 0 && size % 512 == 0 ? .keyRequired : .notADatabase,
                "the source is not an unencrypted SQLite database", path: source.path)
        }
        let partial = try PartialFile.create(besides: destination)
        defer { partial.remove() }
        try mapSQLite {
            // Read-write: ATTACH inherits the main handle's flags. Only the copy is written.
            let handle = try SQLiteConnection(path: source.path, create: false)
            try handle.validateReadable()
            try candidate.bytes.withUnsafeBytes { bytes in
                try handle.export(
                    toPath: partial.url.path, key: bytes, pageSize: settings.pageSize,
                    kdfIterations: settings.kdfIterations, useHMAC: settings.useHMAC)
            }
        }
        try FileSafety.verifyDatabase(at: partial.url, key: candidate, cipher: settings, reportedAs: destination)
        try FileSafety.fsync(partial.url)
        try FileSafety.replace(destination, with: partial.url)
    }
}
