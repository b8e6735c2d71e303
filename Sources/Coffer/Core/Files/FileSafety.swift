import CofferSQLite
import Foundation

/// Crash-safe file replacement: write beside, fsync, rename over, fsync the directory.
enum FileSafety {
    /// Creates an empty file readable by its owner only (0600), replacing any leftover.
    ///
    /// Connections open without `SQLITE_OPEN_CREATE`, and ATTACH inherits that, so targets are
    /// created here first.
    static func createPrivateFile(_ url: URL) throws {
        FileSafety.removeWithSidecars(url)
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw DatabaseError(.io, "cannot create the file", path: url.path) }
    }

    /// Flushes a file's contents to stable storage.
    static func fsync(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { throw DatabaseError(.io, "cannot open for fsync", path: url.path) }
        defer { close(fd) }
        guard Foundation.fsync(fd) == 0 else { throw DatabaseError(.io, "fsync failed", path: url.path) }
    }

    /// Moves `source` over `destination` atomically and makes the rename durable.
    static func replace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw DatabaseError(.io, "cannot move the new file into place (errno \(errno))", path: destination.path)
        }
        try? fsync(destination.deletingLastPathComponent())
    }

    /// Removes a file and its SQLite sidecars, ignoring the ones that do not exist.
    static func removeWithSidecars(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// Opens a finished copy with its key and runs `PRAGMA quick_check`, so a bad copy is never
    /// put in place.
    /// - Throws: ``DatabaseError`` naming `url`: `.corrupt` when the copy is damaged, `.io` when
    ///   reading it failed (the check could not tell whether it is damaged).
    static func verifyDatabase(
        at path: URL, key: KeyCandidate?, cipher: CipherSettings?, reportedAs url: URL, vfs: String? = nil
    ) throws {
        do {
            let check = try SQLiteConnection(path: path.path, create: false, vfs: vfs)
            if let key {
                // Named salt: SQLCipher would take a failed read of it for a wrong key.
                let salted = key.salted(with: KeyCandidate.fileSalt(atPath: path.path) ?? Data())
                try salted.bytes.withUnsafeBytes { try check.applyKey($0) }
                try check.applyCipherSettings(
                    pageSize: cipher?.pageSize, kdfIterations: cipher?.kdfIterations, useHMAC: cipher?.useHMAC)
            }
            let messages = try check.quickCheck()
            guard messages == ["ok"] else {
                let summary = messages.prefix(3).joined(separator: "; ")
                let readError = failedRead(messages)
                throw DatabaseError(
                    readError == nil ? .corrupt : .io, "the new copy failed its check: \(summary)", path: url.path,
                    sqliteCode: readError)
            }
        } catch let error as SQLiteError {
            var mapped = DatabaseError(error)
            if mapped.code == .notADatabase { mapped.code = .corrupt }
            mapped.message = "the new copy cannot be opened: \(error.message)"
            mapped.path = url.path
            throw mapped
        }
    }

    /// The primary result code of a page read that `quick_check` reported failing (`… error
    /// code=<I/O error>`), or nil when it reported damage instead.
    private static func failedRead(_ messages: [String]) -> Int32? {
        for message in messages {
            guard let range = message.range(of: "error code=") else { continue }
            let code = (Int32(message[range.upperBound...].prefix { $0.isNumber }) ?? 0) & 0xFF
            let readCodes = [SQLiteError.ResultCode.ioerr, SQLiteError.ResultCode.full, SQLiteError.ResultCode.nomem]
            if readCodes.contains(code) { return code }
        }
        return nil
    }
}
