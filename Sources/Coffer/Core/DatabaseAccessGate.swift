import Foundation

/// Lets key rotation wait until no connection uses its SQLite handle, and keeps new
/// transactions out while the file is swapped.
///
/// Transactions hold the gate shared for their whole duration (a long-lived read holds it
/// until it ends); rotation holds it exclusively. Waiting is bounded by the busy timeout.
/// Background checkpoints ask it how long the database has been idle.
final class DatabaseAccessGate: Sendable {
    private struct State {
        var shared = 0
        var exclusive = false
        /// When the last transaction ended, in `DispatchTime` nanoseconds.
        var lastLeft: UInt64 = 0
    }

    private let state = Locked(State())

    /// Waits (up to `timeout`) while the gate is held exclusively, then takes a shared hold.
    /// - Throws: ``DatabaseError`` `.busy` after the timeout.
    func enterShared(timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let entered = state.withLock { state -> Bool in
                guard !state.exclusive else { return false }
                state.shared += 1
                return true
            }
            if entered { return }
            guard ContinuousClock.now < deadline else {
                throw DatabaseError(.busy, "the database is being re-keyed; try again when the rotation is done")
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
    /// - Throws: ``DatabaseError`` `.busy` when transactions did not end in time (for example a
    ///   long-lived read transaction), or whatever `body` throws.
    func withExclusiveAccess<T>(timeout: Duration, _ body: () throws -> T) throws -> T {
        let claimed = state.withLock { state -> Bool in
            guard !state.exclusive else { return false }
            state.exclusive = true
            return true
        }
        guard claimed else { throw DatabaseError(.busy, "another key rotation is in progress") }
        defer { state.withLock { $0.exclusive = false } }
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.shared }) > 0 {
            guard ContinuousClock.now < deadline else {
                throw DatabaseError(
                    .busy,
                    "transactions are still open on other connections (a long-lived read transaction?); "
                        + "end them and try again")
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return try body()
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
