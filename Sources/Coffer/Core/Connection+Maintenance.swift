import CofferSQLite

/// What ``Connection/flushMemory(_:)`` releases.
public struct FlushMemoryFlags: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int
    /// Creates flags from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The object and metadata caches.
    public static let caches = FlushMemoryFlags(rawValue: 1)
    /// The prepared-statement cache (statements are prepared again on demand).
    public static let statements = FlushMemoryFlags(rawValue: 2)
    /// SQLite's own releasable memory (page cache).
    public static let sqliteMemory = FlushMemoryFlags(rawValue: 4)
    /// Everything above.
    public static let all: FlushMemoryFlags = [.caches, .statements, .sqliteMemory]
}

/// Memory, pragmas and vacuum.
extension Connection {
    /// Releases memory the connection can rebuild on demand.
    ///
    /// Safe at any time, also from inside one of this connection's transactions (then the
    /// statement cache is kept, since statements may be in use).
    public func flushMemory(_ flags: FlushMemoryFlags = .all) {
        let inside = TransactionGuard.isInside(connection: id)
        try? onQueue {
            if flags.contains(.caches) {
                core.flushCaches()
                for slot in core.extensionStates.values { slot.state.flushMemory() }
            }
            if flags.contains(.statements) && !inside { core.sqlite.clearStatementCache() }
            if flags.contains(.sqliteMemory) { core.sqlite.releaseMemory() }
        }
    }

    /// Runs SQLite's `PRAGMA integrity_check` on the whole file (every table, index and free
    /// page) and returns its messages: `["ok"]` for a sound file.
    /// - Complexity: reads the whole file.
    /// - Throws: ``DatabaseError`` (`.corrupt` when the damage stops the check itself).
    public func integrityCheck() throws -> [String] {
        try onQueue { try mapSQLite { try core.sqlite.integrityCheck() } }
    }

    /// `PRAGMA synchronous` as text: "OFF", "NORMAL", "FULL" or "EXTRA".
    /// - Throws: any ``DatabaseError`` from reading.
    public func pragmaSynchronous() throws -> String {
        Self.name(try pragmaInt("synchronous"), in: ["OFF", "NORMAL", "FULL", "EXTRA"])
    }

    /// `PRAGMA page_size` in bytes.
    /// - Throws: any ``DatabaseError`` from reading.
    public func pragmaPageSize() throws -> Int { try pragmaInt("page_size") }

    /// `PRAGMA mmap_size` in bytes (0: memory mapping off).
    /// - Throws: any ``DatabaseError`` from reading.
    public func pragmaMMapSize() throws -> Int { try pragmaInt("mmap_size") }

    /// `PRAGMA auto_vacuum` as text: "NONE", "FULL" or "INCREMENTAL".
    /// - Throws: any ``DatabaseError`` from reading.
    public func pragmaAutoVacuum() throws -> String {
        Self.name(try pragmaInt("auto_vacuum"), in: ["NONE", "FULL", "INCREMENTAL"])
    }

    private static func name(_ value: Int, in names: [String]) -> String {
        names.indices.contains(value) ? names[value] : "UNKNOWN"
    }

    private func pragmaInt(_ name: String) throws -> Int {
        try onQueue { try mapSQLite { Int(try core.sqlite.scalarInt("PRAGMA \(name)") ?? 0) } }
    }

    /// Rebuilds the file to reclaim free pages, turning on `auto_vacuum = FULL` for files made before it was the
    /// default.
    ///
    /// The file stays encrypted with the same key and settings.
    ///
    /// - Complexity: rewrites the whole file; takes the write lock for the duration.
    /// - Throws: `misuse` inside a transaction; any ``DatabaseError`` from SQLite.
    public func vacuum() throws {
        try TransactionGuard.checkCanBegin(connection: id, write: true)
        try queue.sync { try vacuumOnQueue() }
    }

    /// Runs ``vacuum()-5fc0h`` on the connection's queue without blocking the caller.
    /// - Throws: any ``DatabaseError`` from SQLite.
    public func vacuum() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in continuation.resume(with: Result { try vacuumOnQueue() }) }
        }
    }

    private func vacuumOnQueue() throws {
        try database.writeLock.withLock {
            try core.withAccess {
                try TransactionGuard.inside(connection: id, write: true) {
                    try mapSQLite {
                        try core.sqlite.execute("PRAGMA auto_vacuum = FULL")
                        try core.sqlite.execute("VACUUM")
                    }
                }
            }
        }
        // The rebuilt pages sit in the WAL until a checkpoint copies them home; a reader that
        // pins the WAL only delays the shrink, so this neither fails nor waits for it (waiting
        // would stall the vacuum for the whole busy timeout behind a long-lived read).
        database.checkpointer.truncateWithoutWaiting()
    }
}
