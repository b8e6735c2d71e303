internal import CSQLCipher

/// Keying and cipher settings. SQLCipher 3.4.1 rules (see DESIGN.md §3): key right after
/// open from a byte buffer, then the cipher settings, then a validating read.
extension SQLiteConnection {
    /// Keys the handle with `key` (a passphrase, or a raw key spec `x'…'` as bytes).
    ///
    /// Must be the first call after `init`. SQLCipher copies the bytes; the caller wipes its buffer.
    /// - Throws: ``SQLiteError`` with `SQLITE_MISUSE` for an empty key: SQLCipher would
    ///   otherwise silently leave the database in plaintext.
    package func applyKey(_ key: UnsafeRawBufferPointer) throws {
        guard let base = key.baseAddress, key.count > 0 else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "empty key refused", path: path)
        }
        try check(sqlite3_key(handle, base, Int32(key.count)))
    }

    /// Applies cipher settings; must run after ``applyKey(_:)`` and before any read.
    ///
    /// 3.4.1 silently ignores unknown or misplaced cipher pragmas, so the values are read back
    /// and compared.
    /// - Throws: ``SQLiteError`` when a setting did not take.
    package func applyCipherSettings(pageSize: Int?, kdfIterations: Int?, useHMAC: Bool?) throws {
        if let pageSize {
            try execute("PRAGMA cipher_page_size = \(pageSize)")
        }
        if let kdfIterations {
            try execute("PRAGMA kdf_iter = \(kdfIterations)")
        }
        if let useHMAC {
            try execute("PRAGMA cipher_use_hmac = \(useHMAC ? "ON" : "OFF")")
        }
    }

    /// Reads the schema once, which makes SQLCipher derive the key and decrypt page 1.
    ///
    /// A wrong key surfaces here as `SQLITE_NOTADB` instead of at first use.
    /// - Throws: ``SQLiteError``.
    package func validateReadable() throws {
        _ = try scalarInt("SELECT count(*) FROM sqlite_master")
    }

    /// The SQLCipher version (`PRAGMA cipher_version`), or nil when the linked library is plain SQLite.
    package func cipherVersion() throws -> String? {
        try scalarText("PRAGMA cipher_version")
    }

    /// Checkpoint modes, as `sqlite3_wal_checkpoint_v2` defines them.
    package enum CheckpointMode: Int32, Sendable {
        case passive = 0
        case full = 1
        case restart = 2
        case truncate = 3
    }

    /// Runs a WAL checkpoint and reports the WAL's size in frames and how many were copied back.
    ///
    /// Returns `nil` counts when the database is not in WAL mode.
    /// - Throws: ``SQLiteError`` (`SQLITE_BUSY` when readers or a writer prevented a full checkpoint).
    @discardableResult
    package func checkpoint(_ mode: CheckpointMode) throws -> (walFrames: Int, checkpointed: Int) {
        var log: Int32 = 0
        var done: Int32 = 0
        try check(sqlite3_wal_checkpoint_v2(handle, nil, mode.rawValue, &log, &done), sql: "checkpoint")
        return (Int(log), Int(done))
    }
}
