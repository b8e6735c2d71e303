import CBaseline
import Coffer
import Foundation

/// Waits until a closed `Database` is really gone, so the same file can be opened again.
///
/// A `Database` stays claimed until its last reference goes, and work it queued (a background checkpoint) may hold
/// that last reference: the database is then deallocated on that queue's thread, and its handles close there. A weak
/// reference turns nil as soon as deallocation *starts*, while the last handle's close (which checkpoints and
/// deletes the WAL under an exclusive lock) may still be running; opening the file in that window fails with
/// `busy` (Coffer validates the key before it sets its busy timeout). So the watcher then waits for the `-wal` file to
/// go (the last close deletes it just before it unlocks the file) and then until a reader could lock the file, with
/// the C baseline's unkeyed lock probe.
struct ReleaseWatcher {
    private weak var database: Database?
    private let path: String

    /// Watches `database`; the caller then drops every reference to it and its connections.
    init(_ database: Database) {
        self.database = database
        self.path = database.url.path
    }

    /// Returns once the database is deallocated and its file can be locked by a reader.
    /// - Throws: `BenchError` with code `.io` when the database is still alive, or its file still locked, after
    ///   `timeout` seconds.
    func waitForRelease(timeout: Double = 30) throws {
        let clock = ContinuousClock()
        let start = clock.now
        while database != nil {
            guard clock.now - start < .milliseconds(Int(timeout * 1000)) else {
                throw BenchError(.io, "a closed Coffer database was still alive after \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.0005)
        }
        let walPath = path + "-wal"
        while FileManager.default.fileExists(atPath: walPath), clock.now - start < .milliseconds(Int(timeout * 1000)) {
            Thread.sleep(forTimeInterval: 0.0005)
        }
        guard cb_wait_until_unlocked(path, Int32(timeout * 1000)) == 0 else {
            throw BenchError(.io, "a closed Coffer database's file was still locked after \(timeout) s")
        }
    }
}
