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

        try writeLock.withLock {
            try gate.withExclusiveAccess(timeout: options.busyTimeout) {
                try presenceLock.withExclusive { try replaceFile(with: candidate, newKey: newKey, cipher: cipher) }
            }
        }
        options.keyRotationHooks.didRotate?()
    }
}
