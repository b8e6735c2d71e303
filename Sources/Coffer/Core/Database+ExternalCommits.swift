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
                let (stored, data) = try Self.readSnapshots(on: handle)
                return noteExternalCommit(stored, dataSnapshot: data).external
            }
            handOn(external, by: 0)
        } catch {
            logger.warning(
                "Coffer: could not check the file for other processes' commits",
                metadata: ["path": "\(url.path)", "error": "\(error)"])
        }
    }

    /// Hands on a changeset adopted from the file: a reset to every connection, long-lived
    /// reader and observer, followed by a rebuild of the non-persistent extensions; an advance
    /// that changed no row is only caught up with, by the next transaction of each connection.
    func handOn(_ external: Changeset?, by connection: UInt64) {
        guard let external, external.isReset else { return }
        announce(external, by: connection)
        scheduleMemoryExtensionRebuild()
    }

    /// How far a process opening the file moves the shared snapshot number past the one it finds
    /// when another process has the file open: further than that process can have counted
    /// without writing its numbers (it writes none while alone; 2^32 commits would take years).
    static let openingStride: UInt64 = 1 << 32

    /// Writes a snapshot number past any another process may be using, in a transaction of its
    /// own, and returns it with the file's data snapshot: the numbers this process starts from.
    ///
    /// A process alone with the file does not write its snapshot numbers (see
    /// `recordSnapshotForOtherProcesses`), so the number in the file may lag behind its own.
    /// `BEGIN IMMEDIATE` waits for a commit that found this process absent; every commit after it
    /// finds this process's lock and writes its numbers, having first adopted this one. The data
    /// snapshot stays: opening changes no row, so the processes there do not reset.
    static func announceOpening(on handle: SQLiteConnection, path: String) throws -> (UInt64, UInt64) {
        try mapSQLite {
            try handle.cachedStatement(SQL.beginWrite).run()
            do {
                let (stored, data) = try readSnapshots(on: handle)
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
                return (announced, data)
            } catch {
                try? handle.cachedStatement(SQL.rollback).run()
                throw error
            }
        }
    }

    /// The file's snapshot number and data snapshot (0 for a missing row), in one statement.
    static func readSnapshots(on handle: SQLiteConnection) throws -> (UInt64, UInt64) {
        let stmt = try handle.cachedStatement(SQL.readSnapshots)
        defer { stmt.reset() }
        guard try stmt.step() else { return (0, 0) }
        let stored = stmt.isNull(0) ? 0 : UInt64(bitPattern: stmt.int64(0))
        return (stored, stmt.isNull(1) ? 0 : UInt64(bitPattern: stmt.int64(1)))
    }
}
