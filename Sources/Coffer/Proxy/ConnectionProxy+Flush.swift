import Dispatch

/// Waiting for the proxy's changes to reach the database (beyond YapDatabase, which has no flush).
extension ConnectionProxy {
    /// Blocks until every change made before the call is committed.
    ///
    /// Commits are as durable as the database's ``DatabaseOptions/synchronous`` setting makes
    /// them: with the default `.normal` (WAL) a committed batch survives an application crash,
    /// with `.full` also a power loss. Changes still pending after a failed batch are written
    /// again first, so a flush is also how a caller retries.
    ///
    /// - Complexity: waits for at most the batch in flight plus one more.
    /// - Throws: the error of a batch that failed while the flush waited (the changes stay
    ///   pending and readable); ``DatabaseError`` `.misuse` when called where the batch could
    ///   never run — inside a read-write transaction, inside a transaction of
    ///   ``writeConnection``, or on the proxy's own completion queue; `.closed` once the database
    ///   is closed.
    public func flush() throws {
        try database.gate.checkOpen()
        if DispatchQueue.getSpecific(key: Self.completionQueueKey) == id
            || TransactionGuard.isWriting || TransactionGuard.isInside(connection: writeConnection.id)
        {
            throw DatabaseError(
                .misuse, "flush() was called where the proxy's batch cannot run; it would wait forever")
        }
        let signal = FlushSignal()
        guard let immediate = enqueueFlush({ signal.complete($0) }) else {
            signal.wait()
            return try signal.result.get()
        }
        try immediate.get()
    }

    /// Returns once every change made before the call is committed (see ``flush()-9k58q``).
    /// - Throws: the error of a batch that failed while the flush waited; ``DatabaseError``
    ///   `.closed` once the database is closed.
    public func flush() async throws {
        try database.gate.checkOpen()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if let immediate = enqueueFlush({ continuation.resume(with: $0) }) {
                continuation.resume(with: immediate)
            }
        }
    }

    /// Registers a waiter for everything up to the current version; returns a result instead
    /// when there is nothing to wait for.
    func enqueueFlush(_ resume: @escaping @Sendable (Result<Void, any Error>) -> Void) -> Result<
        Void, any Error
    >? {
        let (immediate, mustWrite) = state.withLock { state -> (Result<Void, any Error>?, Bool) in
            let target = state.version
            if state.committedVersion >= target || (state.phase == .idle && state.dirtyKeys.isEmpty) {
                return (.success(()), false)
            }
            state.waiters.append(FlushWaiter(target: target, resume: resume))
            guard state.phase == .idle else { return (nil, false) }
            // Pending rows left by a failed batch: a flush retries them.
            state.phase = .queued
            return (nil, true)
        }
        if mustWrite { startWrite() }
        return immediate
    }
}

/// Hands a flush result from the completion queue to a blocked caller.
final class FlushSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let stored = Locked<Result<Void, any Error>>(.success(()))

    var result: Result<Void, any Error> { stored.withLock { $0 } }

    func complete(_ result: Result<Void, any Error>) {
        stored.withLock { $0 = result }
        semaphore.signal()
    }

    func wait() {
        semaphore.wait()
    }

    /// Waits until the result is in or `deadline` passed; false on the deadline.
    func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds =
            max(0, remaining.components.seconds) * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(max(0, nanoseconds)))) == .success
    }
}
