import CofferSQLite
public import Dispatch
public import Foundation

/// Encrypted backups and explicit plaintext exports (DESIGN.md §3).
///
/// A backup reads one consistent snapshot, is written beside the destination, verified by
/// reopening it with its key (`PRAGMA quick_check`), and only then renamed into place: a
/// cancelled or failed backup never leaves a file at the destination. A backup first deletes
/// the copies that killed backups to the same destination left beside it (never one that a
/// live backup, in this process or another, is still writing).
extension Connection {
    /// Backs the database up into `url`, encrypted with `key` (default: the database's key) and
    /// `cipher` settings (default: the database's).
    ///
    /// Uses SQLite's page-by-page backup when the page size and HMAC setting stay the same, and
    /// `sqlcipher_export` otherwise (the backup API silently corrupts across settings in 3.4.1).
    /// `progress` reports pages (or 1 unit for an export) and can cancel.
    /// - Complexity: reads the whole database; does not block writers or other readers.
    /// - Throws: ``DatabaseError`` (`.cancelled` when `progress` was cancelled, `.io`, `.corrupt`, …).
    public func backup(
        to url: URL, key: DatabaseKey? = nil, cipher: CipherSettings? = nil, progress: Progress? = nil
    ) throws {
        try TransactionGuard.checkCanBegin(connection: id, write: false)
        try queue.sync {
            try core.withAccess { try backupOnQueue(to: url, key: key, cipher: cipher, progress: progress) }
        }
    }

    /// Runs ``backup(to:key:cipher:progress:)-9f9nl`` without blocking the caller.
    /// - Throws: as the synchronous form.
    public func backup(
        to url: URL, key: DatabaseKey? = nil, cipher: CipherSettings? = nil, progress: Progress? = nil
    ) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                continuation.resume(
                    with: Result {
                        try core.withAccess { try backupOnQueue(to: url, key: key, cipher: cipher, progress: progress) }
                    })
            }
        }
    }

    /// Queues a backup and returns its cancellable `Progress`; `completion` runs on
    /// `completionQueue` (default: a database-owned queue) with the error, if any.
    @discardableResult
    public func asyncBackup(
        to url: URL, key: DatabaseKey? = nil, cipher: CipherSettings? = nil, completionQueue: DispatchQueue? = nil,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) -> Progress {
        let progress = Progress(totalUnitCount: 1)
        queue.async { [self] in
            let failure: (any Error)?
            do {
                try core.withAccess { try backupOnQueue(to: url, key: key, cipher: cipher, progress: progress) }
                failure = nil
            } catch {
                failure = error
            }
            if let completion { database.deliverCompletion(on: completionQueue) { completion(failure) } }
        }
        return progress
    }

    /// Writes an UNENCRYPTED copy of the database to `url`.
    ///
    /// Everything in it is readable by anyone who can read the file: use only to hand data to a tool that needs
    /// plaintext.
    /// - Throws: ``DatabaseError``.
    public func exportUnencryptedCopy(to url: URL) throws {
        try TransactionGuard.checkCanBegin(connection: id, write: false)
        try queue.sync {
            try core.withAccess { try exportUnencryptedOnQueue(to: url) }
        }
    }

    private func exportUnencryptedOnQueue(to url: URL) throws {
        do {
            let partial = try PartialFile.create(besides: url)
            defer { partial.remove() }
            // ATTACH cannot run inside a transaction; the export is one statement, so it still
            // reads one consistent snapshot.
            try TransactionGuard.inside(connection: id, write: false) {
                try mapSQLite {
                    try core.sqlite.export(
                        toPath: partial.url.path, key: nil, pageSize: nil, kdfIterations: nil, useHMAC: nil)
                }
            }
            try FileSafety.fsync(partial.url)
            try FileSafety.replace(url, with: partial.url)
        }
    }

    private func backupOnQueue(to url: URL, key: DatabaseKey?, cipher: CipherSettings?, progress: Progress?) throws {
        let database = database
        let targetCandidate: KeyCandidate? =
            try key.map { try KeyCandidate.candidates(for: $0)[0] } ?? database.handleKey
        var targetCipher = cipher ?? database.handleCipher ?? CipherSettings()
        if targetCipher.pageSize == nil { targetCipher.pageSize = database.pageSize }
        if let major = Int(database.cipherVersion.prefix { $0.isNumber }) {
            try targetCipher.validate(cipherMajor: major)
        }
        guard let targetKey = targetCandidate else {
            throw DatabaseError(
                .misuse, "the database is unencrypted: give a key for the backup, or use exportUnencryptedCopy",
                path: url.path)
        }
        let source = database.handleCipher ?? CipherSettings()
        let samePages =
            targetCipher.pageSize == database.pageSize && (targetCipher.useHMAC ?? true) == (source.useHMAC ?? true)

        let partial = try PartialFile.create(besides: url)
        defer { partial.remove() }
        if samePages {
            try core.performRead(self) { _ in
                try mapSQLite {
                    let destination = try SQLiteConnection(path: partial.url.path, vfs: database.options.vfsName)
                    try targetKey.bytes.withUnsafeBytes { try destination.applyKey($0) }
                    try destination.applyCipherSettings(
                        pageSize: targetCipher.pageSize, kdfIterations: targetCipher.kdfIterations,
                        useHMAC: targetCipher.useHMAC)
                    try core.sqlite.backup(to: destination) { copied, total in
                        progress?.totalUnitCount = Int64(max(total, 1))
                        progress?.completedUnitCount = Int64(copied)
                        return !(progress?.isCancelled ?? false)
                    }
                }
            }
        } else {
            if progress?.isCancelled == true {
                throw DatabaseError(.cancelled, "the backup was cancelled", path: url.path)
            }
            // ATTACH cannot run inside a transaction; the export is one statement, so it still
            // reads one consistent snapshot.
            try TransactionGuard.inside(connection: id, write: false) {
                try mapSQLite {
                    try targetKey.bytes.withUnsafeBytes { key in
                        try core.sqlite.export(
                            toPath: partial.url.path, key: key, pageSize: targetCipher.pageSize,
                            kdfIterations: targetCipher.kdfIterations, useHMAC: targetCipher.useHMAC)
                    }
                }
            }
            progress?.completedUnitCount = progress?.totalUnitCount ?? 1
        }
        if progress?.isCancelled == true { throw DatabaseError(.cancelled, "the backup was cancelled", path: url.path) }
        try FileSafety.verifyDatabase(
            at: partial.url, key: targetKey, cipher: targetCipher, reportedAs: url, vfs: database.options.vfsName)
        try FileSafety.fsync(partial.url)
        try FileSafety.replace(url, with: partial.url)
    }
}
