/// A change the proxy holds for one column of a row until a batch writes it.
enum PendingValue: Sendable {
    /// The new object or metadata.
    case value(any Sendable)
    /// For an object: the row is removed. For metadata: the row has no metadata.
    case removed

    /// What a read sees: the value, or nil for a removal.
    var readValue: (any Sendable)? {
        if case .value(let value) = self { return value }
        return nil
    }

    var isRemoved: Bool {
        if case .removed = self { return true }
        return false
    }
}

/// The proxy's pending changes for one row.
///
/// A row exists in the state exactly while it has a pending object or metadata change; each
/// change carries the proxy-wide version it was made at, so a finished batch can tell whether
/// the value it wrote is still the newest one.
struct PendingRow {
    var object: PendingValue?
    var objectVersion: UInt64 = 0
    var objectDirty = false
    var metadata: PendingValue?
    var metadataVersion: UInt64 = 0
    var metadataDirty = false

    /// Whether the row waits for the next batch (rather than only for the batch in flight).
    var isDirty: Bool { objectDirty || metadataDirty }
    var isEmpty: Bool { object == nil && metadata == nil }
}

/// One row as a batch captured it when its transaction began.
struct CapturedRow {
    let key: CollectionKey
    let object: PendingValue?
    let objectVersion: UInt64
    let metadata: PendingValue?
    let metadataVersion: UInt64
}

/// The rows one read-write transaction writes, and the last version it covers.
struct CapturedBatch {
    let rows: [CapturedRow]
    let version: UInt64
}

/// Where the proxy's write loop is.
enum WritePhase {
    /// No transaction is queued or running.
    case idle
    /// A transaction is queued on the write connection and has not captured its batch yet.
    case queued
    /// A transaction captured its batch and is writing it.
    case running
}

/// A caller of `flush()` waiting for every change up to `target` to be committed.
struct FlushWaiter {
    let target: UInt64
    let resume: @Sendable (Result<Void, any Error>) -> Void
}

/// Everything a ``ConnectionProxy`` keeps behind its mutex.
struct ProxyState {
    var rows: [CollectionKey: PendingRow] = [:]
    /// Keys whose row became dirty, in order; may hold keys since reset (skipped at capture).
    var dirtyKeys: [CollectionKey] = []
    /// The version of the most recent change.
    var version: UInt64 = 0
    var phase = WritePhase.idle
    var inFlight: CapturedBatch?
    /// Whether a change arrived while a batch was running.
    var changedWhileRunning = false
    /// Every change up to this version is committed (or was superseded or reset).
    var committedVersion: UInt64 = 0
    var waiters: [FlushWaiter] = []
    var lastError: (any Error)?
    var filter: AllowList<String> = .all

    /// Marks a row dirty and reports whether a write must be queued now.
    mutating func noteDirty(_ key: CollectionKey, wasDirty: Bool) -> Bool {
        if !wasDirty { dirtyKeys.append(key) }
        switch phase {
        case .idle:
            phase = .queued
            return true
        case .queued:
            return false
        case .running:
            changedWhileRunning = true
            return false
        }
    }

    /// Takes every dirty row into a new batch (called when the write transaction begins).
    mutating func captureBatch() -> CapturedBatch {
        phase = .running
        changedWhileRunning = false
        var captured: [CapturedRow] = []
        captured.reserveCapacity(dirtyKeys.count)
        for key in dirtyKeys {
            guard var row = rows[key], row.isDirty else { continue }
            captured.append(
                CapturedRow(
                    key: key, object: row.objectDirty ? row.object : nil, objectVersion: row.objectVersion,
                    metadata: row.metadataDirty ? row.metadata : nil, metadataVersion: row.metadataVersion))
            row.objectDirty = false
            row.metadataDirty = false
            rows[key] = row
        }
        dirtyKeys.removeAll(keepingCapacity: true)
        let batch = CapturedBatch(rows: captured, version: version)
        inFlight = batch
        return batch
    }

    /// Settles the batch in flight; returns the waiters to resume (with the result) and
    /// whether another transaction must be queued.
    mutating func finishBatch(error: (any Error)?) -> (
        resume: [FlushWaiter], result: Result<Void, any Error>, requeue: Bool
    ) {
        let batch = inFlight
        inFlight = nil
        if let error {
            if let batch { redirty(batch) }
            lastError = error
            let failed = waiters
            waiters = []
            let requeue = changedWhileRunning && !dirtyKeys.isEmpty
            phase = requeue ? .queued : .idle
            changedWhileRunning = false
            return (failed, .failure(error), requeue)
        }
        if let batch {
            drop(batch)
            committedVersion = max(committedVersion, batch.version)
        }
        lastError = nil
        changedWhileRunning = false
        var done: [FlushWaiter] = []
        if dirtyKeys.isEmpty {
            phase = .idle
            done = waiters
            waiters = []
        } else {
            phase = .queued
            waiters.removeAll { waiter in
                guard waiter.target <= committedVersion else { return false }
                done.append(waiter)
                return true
            }
        }
        return (done, .success(()), phase == .queued)
    }

    /// Forgets the values a successful batch wrote, unless they were changed again since.
    private mutating func drop(_ batch: CapturedBatch) {
        for captured in batch.rows {
            guard var row = rows[captured.key] else { continue }
            if captured.object != nil, row.objectVersion == captured.objectVersion, !row.objectDirty {
                row.object = nil
            }
            if captured.metadata != nil, row.metadataVersion == captured.metadataVersion, !row.metadataDirty {
                row.metadata = nil
            }
            rows[captured.key] = row.isEmpty ? nil : row
        }
    }

    /// Queues the rows of a failed batch again, so the next batch retries them.
    private mutating func redirty(_ batch: CapturedBatch) {
        for captured in batch.rows {
            guard var row = rows[captured.key] else { continue }
            let wasDirty = row.isDirty
            if captured.object != nil, row.object != nil { row.objectDirty = true }
            if captured.metadata != nil, row.metadata != nil { row.metadataDirty = true }
            if row.isDirty && !wasDirty { dirtyKeys.append(captured.key) }
            rows[captured.key] = row
        }
    }

    /// Drops every pending change; waiters are released when nothing is left to write.
    mutating func resetAll() -> [FlushWaiter] {
        rows.removeAll()
        dirtyKeys.removeAll()
        return releaseWaitersIfSettled()
    }

    /// Returns (and removes) the waiters when no change is pending or in flight.
    mutating func releaseWaitersIfSettled() -> [FlushWaiter] {
        guard phase == .idle, dirtyKeys.isEmpty else { return [] }
        let done = waiters
        waiters = []
        return done
    }
}
