import Dispatch
public import Foundation

/// Closing: `close(timeout:)`, and YapDatabase's waits for a released database to close.
extension Database {
    /// Closes the database: commits what proxies and preferences still hold, lets running
    /// transactions finish, checkpoints the WAL, closes every SQLite handle and releases the file,
    /// so that it can be opened again at once — in this process too, with other options.
    ///
    /// The steps, in order:
    /// 1. Every live ``ConnectionProxy`` (and so every ``Preferences``) of the database commits
    ///    its pending changes. If one cannot — its batch fails, or does not commit before the
    ///    timeout — `close` throws that error and the database stays open: nothing is lost, and
    ///    `close` can be called again (``ConnectionProxy/reset()`` drops changes that can never
    ///    be written).
    /// 2. Every long-lived read transaction ends, as ``Connection/endLongLivedReadTransaction()``
    ///    would end it; the changesets it would have returned are kept for the next
    ///    ``Connection/beginLongLivedReadTransaction()`` should the close fail.
    /// 3. Transactions that are running or queued on a connection finish normally. New ones wait,
    ///    and fail with `.closed` once the close is done. A transaction still running at the
    ///    timeout makes `close` throw `.busy`; the database then stays open and the waiting
    ///    transactions go on.
    /// 4. The snapshot number is saved, the WAL checkpointed and truncated, every handle closed
    ///    (the WAL and shared-memory files go with the last one), the path released:
    ///    ``waitUntilClosed(_:timeout:)`` returns true at once. ``changes``, every running
    ///    observation (``observe(_:fetch:)`` and its forms) and every
    ///    ``Preferences/updates(for:)`` sequence end normally: no commit can come any more.
    ///
    /// Afterwards every throwing call on the database, its connections, pools, proxies,
    /// preferences and credential stores throws ``DatabaseError`` `.closed`, naming the file.
    /// Non-throwing calls stay harmless: `snapshot` and the other properties keep their last
    /// values, registering a serializer or an object policy changes only this (closed) instance,
    /// `flushMemory` and proxy writes do nothing (the latter logged once), and
    /// ``Connection/asyncRead(_:completionQueue:completion:)`` and the other callback-style calls report `.closed` to their
    /// completion. Closing a closed database does nothing.
    ///
    /// Releasing every reference still closes a database that was never closed, as before; an
    /// explicit close is what a program calls before it exits, and what makes the file free at
    /// a known moment.
    ///
    /// - Parameter timeout: How long to wait for proxies to commit and for transactions to
    ///   end, all steps together (default: ``DatabaseOptions/busyTimeout``).
    /// - Throws: ``DatabaseError`` `.misuse` inside a transaction (the close would wait for
    ///   itself), `.busy` when transactions or a key rotation were still running at the timeout,
    ///   or a proxy's write error; the database is still open after any of them.
    public func close(timeout: Duration? = nil) throws {
        guard !TransactionGuard.isInsideAnyTransaction else {
            throw DatabaseError(
                .misuse, "close() was called inside a transaction; it would wait for that transaction forever",
                path: url.path)
        }
        let deadline = ContinuousClock.now + (timeout ?? options.busyTimeout)
        try closeQueue.sync { try closeOnQueue(until: deadline) }
    }

    /// Closes the database without blocking the caller's thread; see the synchronous ``close(timeout:)-11g9c``.
    /// - Parameter timeout: How long to wait for proxies and transactions (default: the busy timeout).
    /// - Throws: as the synchronous form.
    public func close(timeout: Duration? = nil) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.close(timeout: timeout) })
            }
        }
    }

    /// Whether ``close(timeout:)-11g9c`` has closed the database.
    public var isClosed: Bool { gate.isClosed }

    /// The steps of `close(timeout:)`, one close at a time.
    private func closeOnQueue(until deadline: ContinuousClock.Instant) throws {
        guard !gate.isClosed else { return }
        for participant in closeParticipants.withLock({ $0.live }) {
            try participant.flushBeforeClose(until: deadline)
        }
        for connection in liveConnections() { connection.endLongLivedReadBeforeClose() }
        guard try gate.close(until: deadline) else { return }
        // Nothing can run a transaction from here on, and nothing below throws.
        externalCommitWatcher.withLock { $0 }?.stop()
        for stream in state.withLock({ $0.takeChangeStreams() }) { stream.finish() }
        for participant in closeParticipants.withLock({ $0.live }) { participant.didClose() }
        persistSnapshot()
        for connection in liveConnections() { connection.closeHandleAfterClose() }
        drainHandlePool()
        checkpointer.close(truncating: true)
        presenceLock.release()
        DatabasePathRegistry.release(canonicalPath)
    }

    /// The connections still alive.
    func liveConnections() -> [Connection] {
        state.withLock { $0.connections.values.compactMap(\.connection) }
    }

    /// Whether the database is open; when it is closed, logs (once per database) that `call`
    /// did nothing. For the calls that cannot throw and so do nothing after a close.
    func isUsable(for call: String) -> Bool {
        guard gate.isClosed else { return true }
        guard !loggedUseAfterClose.exchange(true, ordering: .relaxed) else { return false }
        logger.warning(
            "Coffer: \(call) was called after the database was closed; it did nothing",
            metadata: ["path": "\(url.path)"])
        return false
    }

    /// Waits until the database at `url` has finished closing in this process, so that the file
    /// can be copied, deleted or opened with other options, or the program can exit.
    ///
    /// After ``close(timeout:)-11g9c`` returns, this returns true at once: prefer calling that. A
    /// database that was only released closes when its last reference goes away, on whichever
    /// thread drops it. That is usually yours, but one of Coffer's own queues can hold the
    /// database for a moment after you release it (while it posts ``modifiedNotification`` for
    /// your last commit, for example), and then the close — the final checkpoint, the saved
    /// snapshot number, closing every SQLite handle — runs on that queue. Exiting the process in
    /// the middle of it loses the checkpoint and can crash the exit itself, as SQLCipher's
    /// cryptography library is torn down under the closing handles.
    ///
    /// - Parameters:
    ///   - url: The database file, spelled any way that resolves to it.
    ///   - timeout: How long to wait for a database that is still referenced.
    /// - Returns: True when the file is not open in this process; false when it still was after
    ///   `timeout` (something still holds a reference to its database).
    /// - Complexity: Polls every half millisecond until the close finishes.
    public static func waitUntilClosed(_ url: URL, timeout: Duration = .seconds(10)) -> Bool {
        DatabasePathRegistry.waitUntilReleased(DatabasePathRegistry.canonicalPath(url), timeout: timeout)
    }

    /// Waits until every database this process opened has finished closing (YapDatabase's
    /// parity call; ``close(timeout:)-11g9c`` makes it unnecessary).
    ///
    /// A database closed with ``close(timeout:)-11g9c`` no longer counts. Otherwise only released
    /// databases close, and a database held by a top-level variable of `main.swift` is a global
    /// that lives until the process ends, so the wait would use its whole timeout and return false.
    ///
    /// - Parameter timeout: How long to wait for a database that is still referenced.
    /// - Returns: True when no database is open; false when one still was after `timeout`.
    public static func waitUntilAllClosed(timeout: Duration = .seconds(10)) -> Bool {
        DatabasePathRegistry.waitUntilReleased(nil, timeout: timeout)
    }
}
