import Dispatch
import Foundation

/// Runs one iteration of a ``DatabaseObservation``: subscribes to the database's commits, then
/// reads, and reads again after each commit that touched the region.
///
/// Reads run one at a time on the runner's own serial queue, on a connection of its own, so
/// values are delivered in snapshot order. Commits are heard through
/// ``Database/modifiedNotification`` (posted in commit order on the database's notification
/// queue), where only the region check runs. Relevant commits that arrive while a read is queued
/// or running are coalesced into one more read.
final class ObservationRunner<Value: Sendable>: CloseParticipant {
    private struct State {
        /// The snapshot of the last read; nil before the first.
        var readSnapshot: UInt64?
        /// The newest commit that touched the region.
        var changedSnapshot: UInt64 = 0
        var isScheduled = false
        var isFinished = false
        /// The last value delivered, kept only to drop duplicates.
        var lastValue: Value?
        var connection: Connection?
    }

    private let database: Database
    private let region: DatabaseRegion
    private let fetch: @Sendable (ReadTransaction) throws -> Value
    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let queue = DispatchQueue(label: "coffer.observation")
    private let state = Locked(State())
    /// Where the notification observer hands commits: nil until ``start()`` and after ``cancel()``.
    ///
    /// The observer holds this, never the runner, so it keeps nothing else alive.
    private let relay: Locked<(@Sendable (Changeset) -> Void)?>
    /// The ``Database/modifiedNotification`` observer, removed by ``cancel()``.
    private let subscription: Locked<(any NSObjectProtocol)?>

    /// Subscribes to the database's commits; they are ignored until ``start()``.
    init(
        database: Database, region: DatabaseRegion, fetch: @escaping @Sendable (ReadTransaction) throws -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        continuation: AsyncThrowingStream<Value, any Error>.Continuation
    ) {
        self.database = database
        self.region = region
        self.fetch = fetch
        self.isDuplicate = isDuplicate
        self.continuation = continuation
        let relay = Locked<(@Sendable (Changeset) -> Void)?>(nil)
        self.relay = relay
        let token = NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: nil, queue: nil
        ) { [weak database] notification in
            guard let database, notification.object as AnyObject? === database,
                let changeset = notification.userInfo?[Database.changesetKey] as? Changeset,
                let forward = relay.withLock({ $0 })
            else { return }
            forward(changeset)
        }
        self.subscription = Locked(token)
    }

    deinit {
        // A runner whose sequence never started still holds its subscription.
        subscription.withLock { token in
            if let token { NotificationCenter.default.removeObserver(token) }
        }
    }

    /// Starts hearing commits (the subscription is already in place), then queues the first read:
    /// a commit made before the read is in its snapshot, one made after is heard.
    func start() {
        database.closeParticipants.withLock { $0.add(self) }
        relay.withLock { $0 = { [weak self] changeset in self?.receive(changeset) } }
        let started = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.isScheduled = true
            return true
        }
        if started { queue.async { self.read() } }
    }

    /// Stops the observation for good, releasing its subscription and connection.
    ///
    /// Called when the consumer stops iterating, and after a read failed.
    func cancel() {
        relay.withLock { $0 = nil }
        subscription.withLock { token in
            if let token { NotificationCenter.default.removeObserver(token) }
            token = nil
        }
        let connection = state.withLock { state in
            state.isFinished = true
            state.lastValue = nil
            defer { state.connection = nil }
            return state.connection
        }
        // Released here, outside the lock: the connection leaves the database's table.
        withExtendedLifetime(connection) {}
    }

    /// Ends the sequence normally when the database closes: no commit can change the value any
    /// more, and a consumer waiting for one would wait for ever.
    func didClose() {
        cancel()
        continuation.finish()
    }

    /// Called on the notification queue, in commit order.
    private func receive(_ changeset: Changeset) {
        let isSeen = state.withLock { state in
            state.isFinished || (state.readSnapshot.map { changeset.snapshot <= $0 } ?? false)
        }
        guard !isSeen, region.isModified(by: changeset, in: database) else { return }
        let mustSchedule = state.withLock { state -> Bool in
            state.changedSnapshot = max(state.changedSnapshot, changeset.snapshot)
            guard !state.isScheduled, !state.isFinished else { return false }
            state.isScheduled = true
            return true
        }
        if mustSchedule { queue.async { self.read() } }
    }

    /// Runs on the runner's queue.
    private func read() {
        let connection = state.withLock { state -> Connection?? in
            state.isScheduled = false
            guard !state.isFinished else { return nil }
            // A read that already saw every relevant commit (queued while one ran) is skipped.
            if let seen = state.readSnapshot, state.changedSnapshot <= seen { return nil }
            return .some(state.connection)
        }
        guard let connection else { return }
        do {
            let connection = try connection ?? open()
            let (snapshot, value) = try connection.read { tx in (tx.snapshot, try fetch(tx)) }
            let (deliver, again) = state.withLock { state -> (Bool, Bool) in
                state.readSnapshot = max(state.readSnapshot ?? 0, snapshot)
                var deliver = !state.isFinished
                if let isDuplicate {
                    if let last = state.lastValue, isDuplicate(last, value) { deliver = false }
                    if deliver { state.lastValue = value }
                }
                let again = !state.isFinished && !state.isScheduled && state.changedSnapshot > snapshot
                if again { state.isScheduled = true }
                return (deliver, again)
            }
            if deliver { continuation.yield(value) }
            if again { queue.async { self.read() } }
        } catch {
            cancel()
            continuation.finish(throwing: error)
        }
    }

    /// Opens the runner's connection on the first read (not on the consumer's thread).
    private func open() throws -> Connection {
        let connection = try database.newConnection()
        connection.name = "coffer.observation"
        // After a cancel the connection serves this read only, and goes with it.
        state.withLock { state in
            if !state.isFinished { state.connection = connection }
        }
        return connection
    }
}
