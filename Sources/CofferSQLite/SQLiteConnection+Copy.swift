internal import CSQLCipher

/// Copying a database: page-by-page backup and SQLCipher's logical export.
///
/// SQLCipher 3.4.1's backup API copies encrypted pages as they are, so it is correct only
/// between files with the same page size and HMAC setting (it silently produces garbage
/// otherwise; see DESIGN.md §3). `export` re-encrypts row by row and works across settings.
extension SQLiteConnection {
    /// Copies this database into `destination` with the online backup API, `pagesPerStep`
    /// pages at a time; `progress(copied, total)` returns false to cancel.
    /// - Throws: ``SQLiteError`` (`SQLITE_INTERRUPT` when cancelled).
    package func backup(
        to destination: SQLiteConnection, pagesPerStep: Int32 = 256,
        progress: (_ copied: Int, _ total: Int) -> Bool
    ) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.makeError(sqlite3_errcode(destination.handle), sql: "backup")
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(backup) } }
        while true {
            let rc = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            let copied = total - Int(sqlite3_backup_remaining(backup))
            switch rc {
            case SQLITE_DONE:
                _ = progress(total, total)
                finished = true
                try destination.check(sqlite3_backup_finish(backup), sql: "backup")
                return
            case SQLITE_OK, SQLITE_BUSY, SQLITE_LOCKED:
                guard progress(copied, total) else {
                    throw SQLiteError(code: SQLITE_INTERRUPT, message: "backup cancelled", path: destination.path)
                }
                if rc != SQLITE_OK { sqlite3_sleep(5) }
            default:
                finished = true
                sqlite3_backup_finish(backup)
                throw destination.makeError(rc, sql: "backup")
            }
        }
    }

    /// Writes a logical copy of this database to `path` with `sqlcipher_export`.
    ///
    /// `key` is the target's key as given to `sqlite3_key` (passphrase bytes or a raw key spec
    /// `x'…'`); nil writes an unencrypted copy. The cipher settings apply to the target.
    /// - Throws: ``SQLiteError``.
    package func export(
        toPath path: String, key: UnsafeRawBufferPointer?, pageSize: Int?, kdfIterations: Int?, useHMAC: Bool?
    ) throws {
        let attach = try prepare("ATTACH DATABASE ? AS coffer_export KEY ?")
        try attach.bind(path, at: 1)
        if let key, let base = key.baseAddress, key.count > 0 {
            try check(sqlite3_bind_blob(attach.handle, 2, base, Int32(key.count), csqlcipher_transient()))
        } else {
            try attach.bind("", at: 2)
        }
        try attach.run()
        defer { try? execute("DETACH DATABASE coffer_export") }
        if key != nil {
            if let pageSize { try execute("PRAGMA coffer_export.cipher_page_size = \(pageSize)") }
            if let kdfIterations { try execute("PRAGMA coffer_export.kdf_iter = \(kdfIterations)") }
            if let useHMAC { try execute("PRAGMA coffer_export.cipher_use_hmac = \(useHMAC ? "ON" : "OFF")") }
        } else if let pageSize {
            try execute("PRAGMA coffer_export.page_size = \(pageSize)")
        }
        // sqlcipher_export copies tables and rows but not these header fields; auto_vacuum must be
        // set while the target is still empty.
        let autoVacuum = try scalarInt("PRAGMA main.auto_vacuum") ?? 0
        try execute("PRAGMA coffer_export.auto_vacuum = \(autoVacuum)")
        let version = try scalarInt("PRAGMA main.user_version") ?? 0
        do {
            try execute("SELECT sqlcipher_export('coffer_export')")
        } catch var error as SQLiteError where error.code == SQLITE_ERROR {
            // sqlcipher_export reports every failure as SQLITE_ERROR carrying the failing code's
            // standard message; recover the code, so a full disk or an I/O error stays one.
            if let code = Self.resultCode(forStandardMessage: error.message) {
                error.code = code
                error.extendedCode = code
            }
            throw error
        }
        try execute("PRAGMA coffer_export.user_version = \(version)")
    }

    /// The result code whose standard message (`sqlite3_errstr`) is `message`, among the codes
    /// a copy can fail with.
    static func resultCode(forStandardMessage message: String) -> Int32? {
        let codes = [
            SQLITE_IOERR, SQLITE_FULL, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_CANTOPEN, SQLITE_READONLY,
            SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_PERM, SQLITE_INTERRUPT,
        ]
        return codes.first { sqlite3_errstr($0).map { String(cString: $0) } == message }
    }

    /// Runs `PRAGMA quick_check` and returns its messages (["ok"] for a sound file).
    /// - Throws: ``SQLiteError``.
    package func quickCheck() throws -> [String] {
        let stmt = try prepare("PRAGMA quick_check")
        var messages: [String] = []
        while try stmt.step() { messages.append(stmt.text(0)) }
        return messages
    }

    /// Runs `PRAGMA integrity_check` and returns its messages (["ok"] for a sound file).
    /// - Throws: ``SQLiteError``.
    package func integrityCheck() throws -> [String] {
        let stmt = try prepare("PRAGMA integrity_check")
        var messages: [String] = []
        while try stmt.step() { messages.append(stmt.text(0)) }
        return messages
    }
}
