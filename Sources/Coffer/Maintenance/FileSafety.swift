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
    /// - Throws: ``DatabaseError`` `.corrupt` naming `url`.
    static func verifyDatabase(at path: URL, key: KeyCandidate?, cipher: CipherSettings?, reportedAs url: URL) throws {
        do {
            let check = try SQLiteConnection(path: path.path, create: false)
            if let key {
                try key.bytes.withUnsafeBytes { try check.applyKey($0) }
                try check.applyCipherSettings(
                    pageSize: cipher?.pageSize, kdfIterations: cipher?.kdfIterations, useHMAC: cipher?.useHMAC)
            }
            let result = try check.scalarText("PRAGMA quick_check")
            guard result == "ok" else {
                throw DatabaseError(.corrupt, "the new copy failed its check: \(result ?? "no result")", path: url.path)
            }
        } catch let error as SQLiteError {
            throw DatabaseError(.corrupt, "the new copy cannot be opened: \(error.message)", path: url.path)
        }
    }
}
