import CofferSQLite
import Foundation

/// Opens a database file for the first time in a process: checks the file, finds the key
/// that opens it, creates or upgrades the schema, and reads the persisted snapshot.
struct DatabaseOpener {
    let url: URL
    let options: DatabaseOptions

    struct Result {
        var handle: SQLiteConnection
        var handleKey: KeyCandidate?
        var handleCipher: CipherSettings?
        var cipherVersion: String
        var pageSize: Int
        var snapshot: UInt64
        var extensionNames: [String]
        /// Whether `handle`'s locks were dropped by a read of the file outside SQLite.
        var locksLost = false
    }

    private var path: String { url.path }

    func open() throws -> Result {
        let fileManager = FileManager.default
        let exists = fileManager.fileExists(atPath: path)
        if !exists && !options.createIfMissing {
            throw DatabaseError(.io, "the database file does not exist", path: path)
        }
        if exists, let size = try? fileManager.attributesOfItem(atPath: path)[.size] as? Int, size == 0,
            !options.treatsEmptyFileAsNew
        {
            throw DatabaseError(
                .emptyFile,
                "the database file is empty (0 bytes); set treatsEmptyFileAsNew to start a new database in it",
                path: path)
        }
        if !exists {
            try createParentDirectory()
        }
        // A key rotation killed before its swap leaves its copy beside the file.
        PartialFile.removeStale(besides: url)
        do {
            return try openExisting(isNew: !exists)
        } catch let error as DatabaseError {
            guard exists, error.code == .notADatabase || error.code == .corrupt else { throw error }
            switch options.corruptAction {
            case .fail:
                throw error
            case .rename:
                let moved = try moveAside()
                options.logger?.warning(
                    "Coffer: damaged database moved aside", metadata: ["path": "\(path)", "to": "\(moved)"])
            case .delete:
                try removeFileAndSidecars()
                options.logger?.warning("Coffer: damaged database deleted", metadata: ["path": "\(path)"])
            }
            return try openExisting(isNew: true)
        }
    }

    private func openExisting(isNew: Bool) throws -> Result {
        let cipherVersion = try linkedCipherVersion()
        let cipherMajor = Int(cipherVersion.prefix { $0.isNumber }) ?? 3
        // Validated for unencrypted files too: SQLite silently ignores a bad `PRAGMA page_size`.
        try options.cipher.validate(cipherMajor: cipherMajor)
        guard let key = options.key else {
            return try openPlaintext(cipherVersion: cipherVersion)
        }
        let candidates = try KeyCandidate.candidates(for: key)
        let pageSizes: [Int] =
            if let pageSize = options.cipher.pageSize {
                [pageSize]
            } else if isNew {
                [CipherSettings.automaticPageSize]
            } else {
                [CipherSettings.automaticPageSize, CipherSettings.legacyPageSize]
            }
        var lastError: SQLiteError?
        let salt = isNew ? nil : KeyCandidate.fileSalt(atPath: path)
        for given in candidates {
            for pageSize in pageSizes {
                var cipher = options.cipher
                cipher.pageSize = pageSize
                do {
                    // For an existing file, derive a passphrase's page key ourselves (one KDF, as
                    // SQLCipher would) so the read-only probe and the real handle share it. A raw
                    // key gets the file's salt, so SQLCipher never reads the salt itself (see
                    // `KeyCandidate.salted(with:)`: a failed read there passed for a wrong key).
                    let candidate =
                        if given.isPassphrase, let salt {
                            try given.derivedRawSpec(
                                salt: salt, forFileAt: path, iterations: cipher.kdfIterations ?? 64_000)
                        } else if let salt {
                            given.salted(with: salt)
                        } else {
                            given
                        }
                    let guardHandle = isNew ? nil : try probe(candidate, cipher: cipher)
                    return try openGuarded(
                        guardHandle, candidate: candidate, cipher: cipher, cipherVersion: cipherVersion)
                } catch let error as SQLiteError where error.isNotADatabase {
                    lastError = error
                } catch let error as SQLiteError {
                    throw DatabaseError(error)
                }
            }
        }
        throw classifyKeyFailure(keyGiven: true, lastError: lastError)
    }

    private func openPlaintext(cipherVersion: String) throws -> Result {
        do {
            let guardHandle = FileManager.default.fileExists(atPath: path) ? try probe(nil, cipher: nil) : nil
            return try openGuarded(guardHandle, candidate: nil, cipher: nil, cipherVersion: cipherVersion)
        } catch let error as SQLiteError where error.isNotADatabase {
            throw classifyKeyFailure(keyGiven: false, lastError: error)
        } catch let error as SQLiteError {
            throw DatabaseError(error)
        }
    }

    /// Schema, snapshot, and the key later handles use.
    private func finish(
        handle: SQLiteConnection, candidate: KeyCandidate?, cipher: CipherSettings?, cipherVersion: String
    ) throws -> Result {
        try mapSQLite {
            try Self.applyConnectionPragmas(handle, options: options)
            try createOrUpgradeSchema(handle, cipher: cipher)
            if let limit = options.journalSizeLimit {
                try handle.execute("PRAGMA journal_size_limit = \(limit)")
            }
        }
        let pageSize = Int(try mapSQLite { try handle.scalarInt("PRAGMA page_size") } ?? 1024)
        var handleKey = candidate
        let readsSalt = candidate.map { $0.isPassphrase || $0.isUnsaltedRawKey } ?? false
        if let candidate, candidate.isPassphrase {
            // A new file's first page may still sit in the WAL: copy it home so the salt is readable.
            _ = try? handle.checkpoint(.passive)
            handleKey = try candidate.derivedRawSpec(forFileAt: path, iterations: cipher?.kdfIterations ?? 64_000)
        } else if let candidate, candidate.isUnsaltedRawKey {
            // A new file's raw key has no salt yet; later handles get the file's, like existing files.
            _ = try? handle.checkpoint(.passive)
            if let salt = KeyCandidate.fileSalt(atPath: path) { handleKey = candidate.salted(with: salt) }
        }
        let (snapshot, names) = try mapSQLite { () throws -> (UInt64, [String]) in
            let stmt = try handle.prepare(SQL.yapGet)
            try stmt.bind(SQL.snapshotExtension, at: 1)
            try stmt.bind(SQL.snapshotKey, at: 2)
            let snapshot = try stmt.step() ? UInt64(bitPattern: stmt.int64(0)) : 0
            var names: [String] = []
            let list = try handle.prepare(SQL.yapExtensionNames)
            while try list.step() { names.append(list.text(0)) }
            return (snapshot, names)
        }
        var resolved = cipher
        if resolved != nil { resolved?.pageSize = pageSize }
        return Result(
            handle: handle, handleKey: handleKey, handleCipher: resolved, cipherVersion: cipherVersion,
            pageSize: pageSize, snapshot: snapshot, extensionNames: names, locksLost: readsSalt)
    }

    /// Tries a key on a READ-ONLY handle first.
    ///
    /// A read-write handle that fails to read the file would, on close, checkpoint the WAL it found into the file
    /// and delete it — merging another key's WAL (a stale `-wal` beside a re-keyed file) and so destroying data. A
    /// read-only handle never checkpoints, so a failed open leaves every file as it was.
    ///
    /// When the file has a non-empty WAL, the probe's read transaction is kept open and the
    /// handle returned as a guard: the read-write handle's first reads can still fail on pages
    /// the probe did not touch (a stale WAL's frames), and while the guard reads, closing that
    /// handle cannot checkpoint or delete the WAL.
    private func probe(_ candidate: KeyCandidate?, cipher: CipherSettings?) throws -> SQLiteConnection? {
        let handle = try SQLiteConnection(path: path, readOnly: true, vfs: options.vfsName)
        Self.applyBusyTimeout(handle, options: options)
        if let candidate {
            try candidate.bytes.withUnsafeBytes { try handle.applyKey($0) }
            try handle.applyCipherSettings(
                pageSize: cipher?.pageSize, kdfIterations: cipher?.kdfIterations, useHMAC: cipher?.useHMAC)
        }
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        do {
            if walSize > 0 { try handle.execute("BEGIN TRANSACTION") }
            try handle.validateReadable()
        } catch let error as SQLiteError where error.code == SQLiteError.ResultCode.readonly {
            // A hot rollback journal (a process died mid-write, e.g. while switching a swapped-in
            // file to WAL) needs a read-write handle to roll it back. There is no WAL to merge
            // in that case, so the read-write attempt that follows is the right recovery.
            return nil
        }
        return walSize > 0 ? handle : nil
    }

    /// Opens the read-write handle and finishes the open; on any failure the handle is closed
    /// while `guardHandle` (if any) still reads, so the close leaves the WAL alone.
    private func openGuarded(
        _ guardHandle: SQLiteConnection?, candidate: KeyCandidate?, cipher: CipherSettings?, cipherVersion: String
    ) throws -> Result {
        let handle: SQLiteConnection
        do {
            handle = try keyedHandle(candidate, cipher: cipher)
        } catch {
            guardHandle?.close()
            throw error
        }
        do {
            var result = try finish(
                handle: handle, candidate: candidate, cipher: cipher, cipherVersion: cipherVersion)
            if result.locksLost {
                // Reading the new file's salt closed a descriptor of the file, which drops every
                // POSIX lock this process holds on it, SQLite's included (SQLite still believes
                // it holds them). A fresh handle takes them again.
                handle.close()
                let fresh = try keyedHandle(result.handleKey, cipher: result.handleCipher)
                do {
                    try mapSQLite { try Self.applyConnectionPragmas(fresh, options: options) }
                } catch {
                    fresh.close()
                    throw error
                }
                result.handle = fresh
                result.locksLost = false
            }
            guardHandle?.close()
            return result
        } catch {
            handle.close()
            guardHandle?.close()
            throw error
        }
    }

    /// A read-write handle keyed with `key` and `cipher` that has read the file; closed again
    /// when that fails.
    private func keyedHandle(_ key: KeyCandidate?, cipher: CipherSettings?) throws -> SQLiteConnection {
        let handle = try SQLiteConnection(path: path, vfs: options.vfsName)
        do {
            Self.applyBusyTimeout(handle, options: options)
            if let key {
                try key.bytes.withUnsafeBytes { try handle.applyKey($0) }
                try handle.applyCipherSettings(
                    pageSize: cipher?.pageSize, kdfIterations: cipher?.kdfIterations, useHMAC: cipher?.useHMAC)
            }
            try handle.validateReadable()
            return handle
        } catch {
            handle.close()
            throw error
        }
    }

    private func createOrUpgradeSchema(_ handle: SQLiteConnection, cipher: CipherSettings?) throws {
        let version = try handle.scalarInt("PRAGMA user_version") ?? 0
        let tableCount = try handle.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
        if version > SQL.formatVersion {
            throw DatabaseError(
                .unsupportedFormat,
                "the file has format version \(version); this Coffer reads up to \(SQL.formatVersion)", path: path)
        }
        if tableCount == 0 {
            if cipher == nil {
                try handle.execute("PRAGMA page_size = \(options.cipher.pageSize ?? CipherSettings.automaticPageSize)")
            }
            try handle.execute("PRAGMA auto_vacuum = FULL")
        }
        try handle.execute("PRAGMA journal_mode = WAL")
        try handle.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            if version == 1 { try handle.execute(#"DROP TABLE IF EXISTS "yap""#) }
            try handle.execute(SQL.createTables)
            if version >= 1 && version < 3 {
                let hasOld =
                    try handle.scalarInt(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'database'") ?? 0
                if hasOld > 0 {
                    try handle.execute(
                        #"INSERT INTO "database2" ("collection", "key", "data", "metadata") SELECT "collection", "key", "data", "metadata" FROM "database"; DROP TABLE IF EXISTS "database""#
                    )
                }
            }
            if version != SQL.formatVersion {
                try handle.execute("PRAGMA user_version = \(SQL.formatVersion)")
            }
            try handle.execute("COMMIT TRANSACTION")
        } catch {
            try? handle.execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    /// Set before the validating read: a handle of a just-released database may still be
    /// closing (checkpointing the WAL under an exclusive lock), which must mean "wait", not `.busy`.
    static func applyBusyTimeout(_ handle: SQLiteConnection, options: DatabaseOptions) {
        handle.setBusyTimeout(milliseconds: busyTimeoutMilliseconds(options))
    }

    /// The busy timeout in whole milliseconds: keeps fractions of a second, and clamps instead of
    /// overflowing for huge durations.
    static func busyTimeoutMilliseconds(_ options: DatabaseOptions) -> Int32 {
        let (seconds, attoseconds) = options.busyTimeout.components
        let whole = min(max(seconds, 0), Int64(Int32.max) / 1000) * 1000
        return Int32(clamping: whole + max(attoseconds, 0) / 1_000_000_000_000_000)
    }

    /// Pragmas every handle gets (the checkpointer too).
    static func applyConnectionPragmas(_ handle: SQLiteConnection, options: DatabaseOptions) throws {
        applyBusyTimeout(handle, options: options)
        handle.setAutoCheckpoint(pages: 0)
        try handle.execute("PRAGMA synchronous = \(options.synchronous.rawValue)")
        if let kib = options.pageCacheKiB { try handle.execute("PRAGMA cache_size = -\(kib)") }
        if let mmap = options.mmapSize { try handle.execute("PRAGMA mmap_size = \(mmap)") }
    }

    /// The linked library's `PRAGMA cipher_version`, asked once per process.
    private static let cipherVersion: String? = {
        guard let probe = try? SQLiteConnection(path: ":memory:") else { return nil }
        return try? probe.cipherVersion()
    }()

    private func linkedCipherVersion() throws -> String {
        guard let version = Self.cipherVersion, !version.isEmpty else {
            throw DatabaseError(
                .notSQLCipher, "the linked SQLite library is not SQLCipher; refusing to store data unencrypted")
        }
        return version
    }

    /// Turns "SQLCipher could not read page 1" into the most precise error the file allows.
    private func classifyKeyFailure(keyGiven: Bool, lastError: SQLiteError?) -> DatabaseError {
        let header =
            FileHandle(forReadingAtPath: path).flatMap { handle -> Data? in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 1024)
            } ?? Data()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? header.count
        let isPlaintextSQLite = header.starts(with: Array("SQLite format 3\0".utf8))
        let looksEncrypted = size >= 512 && size % 512 == 0 && Set(header).count >= 128
        if isPlaintextSQLite {
            if keyGiven {
                return DatabaseError(
                    .notEncrypted, "a key was given but the file is an unencrypted SQLite database", path: path)
            }
            return DatabaseError(.corrupt, lastError?.message ?? "the database is damaged", path: path)
        }
        if !looksEncrypted {
            return DatabaseError(.notADatabase, "the file is not a database", path: path, sqliteCode: lastError?.code)
        }
        if keyGiven {
            return DatabaseError(
                .wrongKey,
                "the key does not open the file (or its first page is damaged; SQLCipher cannot tell these apart)",
                path: path, sqliteCode: lastError?.code)
        }
        return DatabaseError(.keyRequired, "the file is encrypted; a key is required", path: path)
    }

    private func createParentDirectory() throws {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DatabaseError(.io, "cannot create the directory \(directory.path)", path: path)
        }
    }

    private func moveAside() throws -> String {
        var index = 0
        while FileManager.default.fileExists(atPath: "\(path).\(index).corrupt") { index += 1 }
        let target = "\(path).\(index).corrupt"
        do {
            try FileManager.default.moveItem(atPath: path, toPath: target)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.moveItem(atPath: path + suffix, toPath: target + suffix)
            }
        } catch {
            throw DatabaseError(.io, "cannot move the damaged database aside", path: path)
        }
        return target
    }

    private func removeFileAndSidecars() throws {
        do {
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.removeItem(atPath: path + suffix)
            }
        } catch {
            throw DatabaseError(.io, "cannot delete the damaged database", path: path)
        }
    }
}
