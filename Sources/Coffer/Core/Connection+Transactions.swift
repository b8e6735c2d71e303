public import Dispatch

/// Transactions: synchronous, `async`, and YapDatabase-style with completion callbacks.
///
/// Every form runs on the connection's serial queue, in submission order. A transaction
/// object is valid only inside its closure: keep values, never the transaction.
extension Connection {
    /// Runs `block` in a read transaction and returns its result.
    ///
    /// The transaction sees one consistent snapshot for its whole duration, even while other
    /// connections commit. Blocks the calling thread until the connection is free.
    /// - Throws: `misuse` when called inside a transaction of this connection; any
    ///   ``DatabaseError`` from reading; or whatever `block` throws.
    @_disfavoredOverload
    public func read<T>(_ block: (ReadTransaction) throws -> T) throws -> T {
        try TransactionGuard.checkCanBegin(connection: id, write: false)
        pending.add(1, ordering: .relaxed)
        defer { pending.subtract(1, ordering: .relaxed) }
        return try queue.syncResult { try core.performRead(self, block) }
    }

    /// Runs `block` in a read-write transaction and returns its result; it commits when the
    /// block returns and rolls back when it throws.
    ///
    /// Takes the database's single write lock: read-write transactions on all connections run
    /// one at a time. Readers on other connections are not blocked.
    /// - Throws: `misuse` when called inside a transaction of this connection or inside any
    ///   read-write transaction; any ``DatabaseError`` from writing or committing; or whatever
    ///   `block` throws.
    @_disfavoredOverload
    public func readWrite<T>(_ block: (ReadWriteTransaction) throws -> T) throws -> T {
        try TransactionGuard.checkCanBegin(connection: id, write: true)
        pending.add(1, ordering: .relaxed)
        defer { pending.subtract(1, ordering: .relaxed) }
        return try queue.syncResult {
            try database.writeLock.withLock { try core.performReadWrite(self, block) }
        }
    }

    /// Runs `block` in a read transaction on the connection's queue without blocking the caller.
    /// - Throws: any ``DatabaseError`` from reading, or whatever `block` throws.
    public func read<T: Sendable>(_ block: @escaping @Sendable (ReadTransaction) throws -> T) async throws -> T {
        pending.add(1, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                defer { pending.subtract(1, ordering: .relaxed) }
                continuation.resume(with: Result { try core.performRead(self, block) })
            }
        }
    }

    /// Runs `block` in a read-write transaction without blocking the caller; commits when it
    /// returns, rolls back when it throws.
    /// - Throws: any ``DatabaseError`` from writing or committing, or whatever `block` throws.
    public func readWrite<T: Sendable>(
        _ block: @escaping @Sendable (ReadWriteTransaction) throws -> T
    ) async throws -> T {
        pending.add(1, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                defer { pending.subtract(1, ordering: .relaxed) }
                let result = Result {
                    try database.writeLock.withLock { try core.performReadWrite(self, block) }
                }
                continuation.resume(with: result)
            }
        }
    }

    /// Queues a read transaction; `completion` then runs on `completionQueue` (default: a
    /// database-owned serial queue) with the error, if any.
    public func asyncRead(
        _ block: @escaping @Sendable (ReadTransaction) throws -> Void,
        completionQueue: DispatchQueue? = nil,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        pending.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { pending.subtract(1, ordering: .relaxed) }
            let failure: (any Error)?
            do {
                try core.performRead(self, block)
                failure = nil
            } catch {
                failure = error
            }
            if let completion {
                database.deliverCompletion(on: completionQueue) { completion(failure) }
            }
        }
    }

    /// Queues a read-write transaction; `completion` then runs on `completionQueue` (default: a
    /// database-owned serial queue) with the error, if any, after the commit.
    public func asyncReadWrite(
        _ block: @escaping @Sendable (ReadWriteTransaction) throws -> Void,
        completionQueue: DispatchQueue? = nil,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        pending.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { pending.subtract(1, ordering: .relaxed) }
            let failure: (any Error)?
            do {
                try database.writeLock.withLock { try core.performReadWrite(self, block) }
                failure = nil
            } catch {
                failure = error
            }
            if let completion {
                database.deliverCompletion(on: completionQueue) { completion(failure) }
            }
        }
    }

    /// Calls `completion` on `completionQueue` once every transaction queued before this call
    /// has finished.
    public func flushTransactions(completionQueue: DispatchQueue? = nil, completion: @escaping @Sendable () -> Void) {
        queue.async { [database] in
            database.deliverCompletion(on: completionQueue, completion)
        }
    }

    /// Returns once every transaction queued before this call has finished.
    public func flushTransactions() async {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
    }
}
