import CofferSQLite
import Foundation

/// Noticing, between transactions, commits other processes made (``DatabaseOptions/multiProcessSupport``).
extension Database {
    /// Reads the snapshot number in the file and, when another process committed past this
    /// process's snapshot, adopts it and announces the external reset to every connection,
    /// long-lived reader and observer.
    ///
    /// Runs on the watcher's queue when the write-ahead log changes, with a pooled handle: a
    /// transaction would find the same on its own, but an idle process learns of the commit
    /// only this way. Failures are logged and left for the next change or transaction.
    func checkForExternalCommits() {
        guard options.multiProcessSupport, !gate.isClosed else { return }
        do {
            try gate.enterShared(timeout: options.busyTimeout)
            defer { gate.leaveShared() }
            let (handle, generation) = try dequeueHandle() ?? openHandle()
            defer { enqueueHandle(handle, generation: generation) }
            // One statement, outside the snapshot gate: a number this process is committing is
            // told apart by its changeset, registered before the SQLite commit.
            let external = try mapSQLite { () throws -> Changeset? in
                let stmt = try handle.cachedStatement(SQL.pinRead)
                defer { stmt.reset() }
                guard try stmt.step() else { return nil }
                return noteExternalCommit(UInt64(bitPattern: stmt.int64(0))).reset
            }
            if let external { announce(external, by: 0) }
        } catch {
            logger.warning(
                "Coffer: could not check the file for other processes' commits",
                metadata: ["path": "\(url.path)", "error": "\(error)"])
        }
    }

    /// How far a process opening the file moves the shared snapshot number past the one it finds
    /// when another process has the file open: further than that process can have counted
    /// without writing its numbers (it writes none while alone; 2^32 commits would take years).
    static let openingStride: UInt64 = 1 << 32

    /// Writes a snapshot number past any another process may be using, in a transaction of its
    /// own, and returns it: the number this process starts from.
    ///
    /// A process alone with the file does not write its snapshot numbers (see
    /// `recordSnapshotForOtherProcesses`), so the number in the file may lag behind its own.
    /// `BEGIN IMMEDIATE` waits for a commit that found this process absent; every commit after it
    /// finds this process's lock and writes its numbers, having first adopted this one.
    static func announceOpening(on handle: SQLiteConnection, path: String) throws -> UInt64 {
        try mapSQLite {
            try handle.cachedStatement(SQL.beginWrite).run()
            do {
                let stored = try { () throws -> UInt64 in
                    let read = try handle.cachedStatement(SQL.pinRead)
                    defer { read.reset() }
                    return try read.step() ? UInt64(bitPattern: read.int64(0)) : 0
                }()
                let (announced, overflow) = stored.addingReportingOverflow(openingStride)
                guard !overflow else {
                    throw DatabaseError(.misuse, "the file's snapshot number cannot grow any further", path: path)
                }
                let write = try handle.cachedStatement(SQL.yapSet)
                try write.bind(SQL.snapshotExtension, at: 1)
                try write.bind(SQL.snapshotKey, at: 2)
                try write.bind(Int64(bitPattern: announced), at: 3)
                try write.run()
                try handle.cachedStatement(SQL.commit).run()
                return announced
            } catch {
                try? handle.cachedStatement(SQL.rollback).run()
                throw error
            }
        }
    }
}
