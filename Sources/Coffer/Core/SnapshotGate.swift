import Foundation

/// Keeps SQLite commits and the start of read transactions apart, so a reader knows from memory
/// which snapshot SQLite gave it.
///
/// A read transaction takes SQLite's snapshot at its first read. If no commit can run while that
/// read happens, the snapshot SQLite pins is exactly the database's last committed snapshot, and
/// nothing has to be read back from the file. Writers never need the gate to begin: they are
/// serialized by the write queue, and `BEGIN IMMEDIATE` pins the newest commit, which is always
/// the last published one.
///
/// Pinning is shared (readers pin at the same time); a commit is exclusive and wins over readers
/// that arrive after it, so a stream of new readers cannot hold a writer back. A reader waits at
/// most for one SQLite `COMMIT`, a writer for the few microseconds of the pins already running.
final class SnapshotGate: @unchecked Sendable {
    // Safety: `pinning` and `committing` are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var pinning = 0
    private var committing = false

    /// Runs `body`, which begins a read transaction, while no commit is in progress.
    func pin<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        while committing { condition.wait() }
        pinning += 1
        condition.unlock()
        defer {
            condition.lock()
            pinning -= 1
            if pinning == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body()
    }

    /// Runs `body`, which commits and publishes the new snapshot, while no reader is pinning.
    func commit<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        committing = true
        while pinning > 0 { condition.wait() }
        condition.unlock()
        defer {
            condition.lock()
            committing = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
