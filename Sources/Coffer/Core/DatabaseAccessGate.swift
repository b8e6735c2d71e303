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
    /// Twice the number of shared holds, plus 1 while the gate is held exclusively.
    ///
    /// One atomic word rather than a lock: every transaction enters and leaves the gate, and
    /// nobody is woken (waiters poll), so a compare-and-swap is all a hold needs.
    private let word = Atomic<Int>(0)
    /// When the last transaction ended, in `DispatchTime` nanoseconds.
    private let lastLeft = Atomic<UInt64>(0)
    /// Whether the database was closed; set once, while the gate is held exclusively for good.
    ///
    /// Every later entry throws `.closed`. Atomic so that the checks of proxy and preference
    /// calls take no lock.
    private let closed = Atomic<Bool>(false)
    /// The database file, named by the `.closed` error.
    private let path: String

    private static let exclusiveBit = 1
    private static let sharedUnit = 2

    init(path: String) {
        self.path = path
    }

    /// Whether the database was closed.
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Whether a rotation or a close holds the gate (and new transactions wait).
    var isHeldExclusively: Bool { word.load(ordering: .acquiring) & Self.exclusiveBit != 0 }

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
        let current = word.load(ordering: .relaxed)
        if current & Self.exclusiveBit == 0
            && word.compareExchange(
                expected: current, desired: current + Self.sharedUnit, ordering: .acquiringAndReleasing
            ).exchanged
        {
            return
        }
        try enterSharedWaiting(timeout: timeout)
    }

    /// ``enterShared(timeout:)`` once its first try failed: retries, and waits while the gate is
    /// held exclusively (apart, so the common entry sets up no deadline).
    @inline(never)
    private func enterSharedWaiting(timeout: Duration) throws {
        var deadline: ContinuousClock.Instant?
        var current = word.load(ordering: .relaxed)
        while true {
            if current & Self.exclusiveBit == 0 {
                let (exchanged, original) = word.compareExchange(
                    expected: current, desired: current + Self.sharedUnit, ordering: .acquiringAndReleasing)
                if exchanged { return }
                current = original
                continue
            }
            // A close holds the gate for good and sets `closed` while it does.
            guard !isClosed else { throw closedError }
            let now = ContinuousClock.now
            if deadline == nil { deadline = now + timeout }
            guard let deadline, now < deadline else {
                throw DatabaseError(
                    .busy, "the database is being re-keyed or closed; try again when that is done", path: path)
            }
            Thread.sleep(forTimeInterval: 0.001)
            current = word.load(ordering: .relaxed)
        }
    }

    /// Ends a shared hold taken by ``enterShared(timeout:)``.
    func leaveShared() {
        // Stored before the hold ends, so `idleTime(at:)` never pairs no holds with an older time.
        lastLeft.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        word.subtract(Self.sharedUnit, ordering: .releasing)
    }

    /// How long no transaction has been open at `now` (`DispatchTime` nanoseconds); 0 while one is.
    func idleTime(at now: UInt64) -> UInt64 {
        guard word.load(ordering: .acquiring) < Self.sharedUnit else { return 0 }
        return now - min(now, lastLeft.load(ordering: .relaxed))
    }

    /// Blocks new shared holds, waits (up to `timeout`) for current ones to end, runs `body`.
    /// - Throws: ``DatabaseError`` `.closed` once the database is closed, `.busy` when
    ///   transactions did not end in time (for example a long-lived read transaction) or a close
    ///   or another rotation holds the gate, or whatever `body` throws.
    func withExclusiveAccess<T>(timeout: Duration, _ body: () throws -> T) throws -> T {
        guard claimExclusive() else {
            try checkOpen()
            throw DatabaseError(.busy, "a key rotation or a close is in progress", path: path)
        }
        defer { releaseExclusive() }
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
            if isClosed { return false }
            if claimExclusive() { break }
            guard ContinuousClock.now < deadline else {
                throw DatabaseError(.busy, "a key rotation was still running; close the database later", path: path)
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        do {
            try waitForSharedHolds(until: deadline)
        } catch {
            releaseExclusive()
            throw error
        }
        closed.store(true, ordering: .releasing)
        return true
    }

    /// Sets the exclusive bit unless a rotation or a close (also a finished one) holds it.
    /// - Returns: whether this call set it.
    private func claimExclusive() -> Bool {
        var current = word.load(ordering: .relaxed)
        while current & Self.exclusiveBit == 0 {
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: current | Self.exclusiveBit, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    private func releaseExclusive() {
        word.subtract(Self.exclusiveBit, ordering: .releasing)
    }

    /// Waits until no shared hold is left; the caller holds the gate exclusively.
    private func waitForSharedHolds(until deadline: ContinuousClock.Instant) throws {
        while word.load(ordering: .acquiring) >= Self.sharedUnit {
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
