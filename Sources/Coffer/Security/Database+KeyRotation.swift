import CofferSQLite
import Foundation

/// Data-key rotation and cipher-setting changes (DESIGN.md §3).
extension Database {
    /// Re-encrypts the whole file under `newKey` (and optionally new cipher settings), crash-safely.
    ///
    /// The steps: wait until no transaction is open (the write lock and the access gate stop new
    /// ones), checkpoint and truncate the WAL, `sqlcipher_export` into a new file beside the old
    /// one, reopen it with the new key and check it, fsync it, call
    /// ``KeyRotationHooks/willReplaceFile`` so the application can persist the new key, close
    /// every handle, remove `-wal`/`-shm`, rename the new file over the old one and fsync the
    /// directory. Connections reopen with the new key on their next transaction.
    ///
    /// A crash before the rename leaves the old file (old key); after it, the new file (new
    /// key): give ``DatabaseKey/candidates(_:)`` both keys, newest first, until ``KeyRotationHooks/didRotate``
    /// runs. SQLCipher 3.4.1's in-place rekey is not used: it can report success
    /// after failing (DESIGN.md §3). An error means the file was not replaced; once it has been,
    /// the rotation returns normally even if reopening the file for checkpoints then failed
    /// (logged; retried by the next checkpoint or rotation).
    /// - Complexity: rewrites the whole file; needs free disk space for a second copy.
    /// - Throws: ``DatabaseError`` `.busy` (transactions stayed open past the busy timeout — a
    ///   long-lived read transaction must be ended first), `.misuse` (called inside a
    ///   transaction), `.invalidKey`, `.unsupportedCipherSettings`, `.io`, `.corrupt` (the new copy
    ///   failed its check: nothing was replaced), `.closed` once the database is closed, or what
    ///   `willReplaceFile` throws.
    public func rotateKey(to newKey: DatabaseKey, cipher newCipher: CipherSettings? = nil) throws {
        try gate.checkOpen()
        guard !TransactionGuard.isInsideAnyTransaction else {
            throw DatabaseError(.misuse, "rotateKey was called inside a transaction", path: url.path)
        }
        guard let candidate = try KeyCandidate.candidates(for: newKey).first else {
            throw DatabaseError(.invalidKey, "no key to rotate to", path: url.path)
        }
        let current = keying.withLock { $0 }
        guard current.key != nil else {
            throw DatabaseError(
                .misuse, "the database is unencrypted; export it to an encrypted copy instead", path: url.path)
        }
        var cipher = newCipher ?? current.cipher ?? CipherSettings()
        if cipher.pageSize == nil { cipher.pageSize = current.pageSize }
        try cipher.validate(cipherMajor: Int(cipherVersion.prefix { $0.isNumber }) ?? 3)

        try writeQueue.sync {
            try gate.withExclusiveAccess(timeout: options.busyTimeout) {
                try replaceFile(with: candidate, newKey: newKey, cipher: cipher)
            }
        }
        options.keyRotationHooks.didRotate?()
    }

    private func replaceFile(with candidate: KeyCandidate, newKey: DatabaseKey, cipher: CipherSettings) throws {
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
