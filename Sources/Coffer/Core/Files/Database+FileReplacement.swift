import CofferSQLite
import Foundation

/// Swapping the database file for a re-encrypted copy, and the checkpointer's handle on it.
extension Database {
    /// Replaces the file, crash-safely, by a copy encrypted under `candidate` and `cipher`: the
    /// file steps of ``rotateKey(to:cipher:)``, run holding the write queue and the exclusive gate.
    func replaceFile(with candidate: KeyCandidate, newKey: DatabaseKey, cipher: CipherSettings) throws {
        let partial = try PartialFile.create(besides: url)
        defer { partial.remove() }
        try checkpointer.withHandle(openingWith: openCheckpointHandle) { handle in
            try mapSQLite {
                _ = try handle.checkpoint(.truncate)
                try candidate.bytes.withUnsafeBytes { key in
                    try handle.export(
                        toPath: partial.url.path, key: key, pageSize: cipher.pageSize,
                        kdfIterations: cipher.kdfIterations, useHMAC: cipher.useHMAC)
                }
            }
        }
        try FileSafety.verifyDatabase(
            at: partial.url, key: candidate, cipher: cipher, reportedAs: url, vfs: options.vfsName)
        try FileSafety.fsync(partial.url)
        // Worked out before the swap, from the copy (it has the salt the file will have), so that
        // nothing that can fail stands between the swap and recording the new key. Later handles
        // name the salt themselves (see `KeyCandidate.salted(with:)`).
        let handleKey =
            candidate.isPassphrase
            ? try candidate.derivedRawSpec(forFileAt: partial.url.path, iterations: cipher.kdfIterations ?? 64_000)
            : candidate.salted(with: KeyCandidate.fileSalt(atPath: partial.url.path) ?? Data())
        try options.keyRotationHooks.willReplaceFile?(newKey)

        // No transaction is open (exclusive gate), so every handle can be closed safely. All must
        // be closed before the rename: closing a handle of the old file later would checkpoint
        // into, or delete, the new file's WAL by name.
        let connections = state.withLock { $0.connections.values.compactMap(\.connection) }
        for connection in connections { connection.core.sqlite.close() }
        drainHandlePool()
        checkpointer.replaceHandle(with: nil, pageSize: cipher.pageSize ?? pageSize)
        for sidecar in [walURL, shmURL] { try? FileManager.default.removeItem(at: sidecar) }
        try FileSafety.replace(url, with: partial.url)

        // The file is the new one now: the rotation is done whatever happens next. Record the new
        // key first, so every handle opened from here on uses it (a failure below used to leave
        // the database keying new handles with the old key: `.notADatabase` until reopened).
        keying.withLock { keying in
            keying = HandleKeying(
                key: handleKey, cipher: cipher, pageSize: cipher.pageSize ?? keying.pageSize,
                generation: keying.generation + 1)
            keyingGeneration.store(keying.generation, ordering: .releasing)
        }
        do {
            checkpointer.replaceHandle(with: try openCheckpointHandle(), pageSize: cipher.pageSize ?? pageSize)
        } catch {
            // Connections open their own handles when they next need one; the checkpoint handle
            // (and the switch back to WAL) is retried by the next checkpoint or rotation.
            logger.warning(
                "Coffer: the key was rotated, but reopening the file for checkpoints failed; retrying later",
                metadata: ["path": "\(url.path)", "error": "\(error)"])
        }
    }

    /// Opens the handle the checkpointer uses, with the current key, and puts the file in WAL mode
    /// (a rotated file starts in rollback-journal mode).
    /// - Throws: ``DatabaseError``.
    func openCheckpointHandle() throws -> SQLiteConnection {
        let (handle, _) = try openHandle()
        try mapSQLite { try handle.execute("PRAGMA journal_mode = WAL") }
        return handle
    }
}
