import Foundation
import Synchronization

/// Lets key rotation and `Database.close(timeout:)` wait until no connection uses
/// its SQLite handle, and keeps new transactions out while the file is swapped or closed.
///
/// Transactions hold the gate shared for their whole duration (a long-lived read holds it
/// until it ends); rotation holds it exclusively, and a close holds it exclusively for good.
/// Waiting is bounded by the busy timeout. Background checkpoints ask it how long the database
/// has been idle.
final class DatabaseAccessGate: Sendable {
    private struct State {
        var shared = 0
        var exclusive = false
        /// When the last transaction ended, in `DispatchTime` nanoseconds.
        var lastLeft: UInt64 = 0
    }

    private let state = Locked(State())
    /// Set once, under the state lock, when the database is closed: every later entry throws
    /// `.closed`. Atomic so that the checks of proxy and preference calls take no lock.
    private let closed = Atomic<Bool>(false)
    /// The database file, named by the `.closed` error.
    private let path: String

    init(path: String) {
        self.path = path
    }

    /// Whether the database was closed.
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Whether a rotation or a close holds the gate (and new transactions wait).
    var isHeldExclusively: Bool { state.withLock { $0.exclusive } }

    /// The error every entry point throws once the database is closed.
    var closedError: DatabaseError {
        DatabaseError(.closed, "the database was closed; open the file again to go on using it", path: path)
    }

    /// Throws ``closedError`` when the database was closed.
    func checkOpen() throws {
        if isClosed { throw closedError }
    }

    /// Waits (up to `timeout`) while the gate is held exclusively, then takes a shared hold.
    /// - Throws: ``DatabaseError`` `.closed` once the database is closed (also when it closes
    ///   while this waits), `.busy` after the timeout.
    func enterShared(timeout: Duration) throws {
        // Read the clock only once the gate makes this wait: every transaction enters here.
        var deadline: ContinuousClock.Instant?
        while true {
            let entered = try state.withLock { state -> Bool in
                guard !isClosed else { throw closedError }
                guard !state.exclusive else { return false }
                state.shared += 1
                return true
            }
            if entered { return }
            let now = ContinuousClock.now
            if deadline == nil { deadline = now + timeout }
            guard let deadline, now < deadline else {
                throw DatabaseError(
                    .busy, "the database is being re-keyed or closed; try again when that is done", path: path)
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    func leaveShared() {
        state.withLock { state in
            state.shared -= 1
            if state.shared == 0 { state.lastLeft = DispatchTime.now().uptimeNanoseconds }
        }
    }

    /// How long no transaction has been open at `now` (`DispatchTime` nanoseconds); 0 while one is.
    func idleTime(at now: UInt64) -> UInt64 {
        state.withLock { state in state.shared > 0 ? 0 : now - min(now, state.lastLeft) }
    }

    /// Blocks new shared holds, waits (up to `timeout`) for current ones to end, runs `body`.
    /// - Throws: ``DatabaseError`` `.closed` once the database is closed, `.busy` when
    ///   transactions did not end in time (for example a long-lived read transaction) or a close
    ///   or another rotation holds the gate, or whatever `body` throws.
    func withExclusiveAccess<T>(timeout: Duration, _ body: () throws -> T) throws -> T {
        let claimed = try state.withLock { state -> Bool in
            guard !isClosed else { throw closedError }
            guard !state.exclusive else { return false }
            state.exclusive = true
            return true
        }
        guard claimed else { throw DatabaseError(.busy, "a key rotation or a close is in progress", path: path) }
        defer { state.withLock { $0.exclusive = false } }
        try waitForSharedHolds(until: ContinuousClock.now + timeout)
        return try body()
    }

    /// Closes the gate for good once every shared hold has ended.
    ///
    /// From then on every entry throws `.closed`. New entries wait meanwhile, so they either go
    /// on (when this gives up) or fail with `.closed`, never both.
    ///
    /// - Parameter deadline: When to give up waiting for a rotation or for open transactions.
    /// - Returns: false when the gate was closed already.
    /// - Throws: ``DatabaseError`` `.busy` when a rotation or transactions were still running at
    ///   `deadline`; the gate is then open as before.
    func close(until deadline: ContinuousClock.Instant) throws -> Bool {
        while true {
            let claimed = state.withLock { state -> Bool? in
                if isClosed { return nil }
                guard !state.exclusive else { return false }
                state.exclusive = true
                return true
            }
            guard let claimed else { return false }
            if claimed { break }
            guard ContinuousClock.now < deadline else {
                throw DatabaseError(.busy, "a key rotation was still running; close the database later", path: path)
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        do {
            try waitForSharedHolds(until: deadline)
        } catch {
            state.withLock { $0.exclusive = false }
            throw error
        }
        state.withLock { _ in closed.store(true, ordering: .releasing) }
        return true
    }

    /// Waits until no shared hold is left; the caller holds the gate exclusively.
    private func waitForSharedHolds(until deadline: ContinuousClock.Instant) throws {
        while state.withLock({ $0.shared }) > 0 {
            guard ContinuousClock.now < deadline else {
                throw DatabaseError(
                    .busy,
                    "transactions are still open on other connections (a long-lived read transaction?); "
                        + "end them and try again", path: path)
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}

/// The key and settings every new handle of a database uses; replaced by key rotation.
struct HandleKeying: Sendable {
    /// The bytes that key every new handle (nil for an unencrypted file).
    var key: KeyCandidate?
    /// The cipher settings every handle applies, with the page size resolved.
    var cipher: CipherSettings?
    /// The file's page size in bytes.
    var pageSize: Int
    /// Bumped by every rotation: handles of an older generation are reopened.
    var generation: UInt64 = 0
}
