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
                return noteExternalCommit(UInt64(bitPattern: stmt.int64(0))).1
            }
            if let external { announce(external, by: 0) }
        } catch {
            logger.warning(
                "Coffer: could not check the file for other processes' commits",
                metadata: ["path": "\(url.path)", "error": "\(error)"])
        }
    }
}
