import CofferSQLite
import Dispatch
import Logging
import Synchronization

/// The handle Coffer checkpoints the WAL with, and the queue background checkpoints run on.
///
/// A class of its own so that a background checkpoint holds only this object, never the
/// ``Database``: releasing the last reference to a database must release its file at once, so
/// the file can be opened again right away instead of failing with `misuse` while a checkpoint
/// that was scheduled by the last commit is still running. ``close()`` closes the handle when
/// the database goes away, so the file is fully closed by then.
final class WALCheckpointer: Sendable {
    private let handle: Locked<SQLiteConnection?>
    private let currentPageSize: Atomic<Int>
    private let framesAtLastSchedule = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "coffer.database.checkpoint", qos: .utility)
    private let pending = Atomic<Bool>(false)
    /// Set by ``close()`` under the handle's lock: nothing reopens a handle after it.
    private let closed = Atomic<Bool>(false)
    private let path: String
    private let truncationThreshold: Int
    private let busyTimeoutMilliseconds: Int32
    private let logger: Logger

    init(
        handle: SQLiteConnection, path: String, pageSize: Int, activity: DatabaseAccessGate, options: DatabaseOptions,
        logger: Logger
    ) {
        self.handle = Locked(handle)
        self.activity = activity
        self.path = path
        self.currentPageSize = Atomic(pageSize)
        self.truncationThreshold = options.walTruncationThreshold
        self.busyTimeoutMilliseconds = DatabaseOpener.busyTimeoutMilliseconds(options)
        self.logger = logger
    }

    /// WAL size, in frames, from which a commit schedules a passive checkpoint (SQLite's own
    /// automatic checkpoint uses the same figure; Coffer runs it in the background instead).
    static let checkpointFrames = 1000

    /// How long the database must have had no transaction open before a scheduled checkpoint
    /// starts, in nanoseconds.
    ///
    /// A checkpoint's reads, writes and fsyncs slow the transactions running beside it, small
    /// writes and long enumerations alike, most on a machine with few cores. So a checkpoint waits
    /// for a pause, up to ``longestDeferral``.
    static let quietPeriod: UInt64 = 50_000_000

    /// The longest a scheduled checkpoint waits for a pause, in nanoseconds: it then runs even
    /// while transactions go on.
    ///
    /// Until a checkpoint syncs the WAL, commits made with `synchronous = NORMAL` can be lost to a
    /// power cut; five seconds is the interval at which ext4 commits its journal, and shorter than
    /// the 30 s the kernel lets written data wait in memory. The WAL's size needs no time limit: past
    /// the truncation threshold the checkpoint does not wait at all.
    static let longestDeferral: UInt64 = 5_000_000_000

    /// Tells how long the database has been without an open transaction.
    private let activity: DatabaseAccessGate
    /// Whether the log passed the truncation threshold since the last checkpoint was scheduled.
    private let overThreshold = Atomic<Bool>(false)

    /// Called after each commit with the WAL's size, to schedule the next checkpoint.
    ///
    /// One is scheduled once the log has grown by ``checkpointFrames`` (or by the truncation
    /// threshold, if smaller) since the last one was scheduled: a log that a reader or a running
    /// checkpoint keeps from restarting would otherwise schedule one after every commit. It waits
    /// for a pause in the transactions, unless the log passed the truncation threshold.
    func noteWAL(frames: Int) {
        let pageSize = max(1, currentPageSize.load(ordering: .relaxed))
        let last = framesAtLastSchedule.load(ordering: .relaxed)
        let base = frames < last ? 0 : last  // the log restarted from the beginning
        let step = max(1, min(Self.checkpointFrames, truncationThreshold / pageSize))
        guard frames - base >= step else {
            if base != last { framesAtLastSchedule.store(0, ordering: .relaxed) }
            return
        }
        framesAtLastSchedule.store(frames, ordering: .relaxed)
        if frames * pageSize >= truncationThreshold { overThreshold.store(true, ordering: .relaxed) }
        schedule()
    }

    /// Runs a checkpoint on the checkpoint queue — at once past the truncation threshold,
    /// otherwise after a pause in the transactions; several requests coalesce into one.
    private func schedule() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let scheduled = DispatchTime.now().uptimeNanoseconds
        queue.async { [self] in runAfterAPause(scheduledAt: scheduled) }
    }

    /// Runs the pending checkpoint when no transaction was open for ``quietPeriod``, it waited
    /// ``longestDeferral`` or the log passed the truncation threshold meanwhile; otherwise looks
    /// again when the quiet period could have passed.
    private func runAfterAPause(scheduledAt scheduled: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        let idle = activity.idleTime(at: now)
        let due = now - min(now, scheduled) >= Self.longestDeferral || overThreshold.load(ordering: .relaxed)
        guard idle >= Self.quietPeriod || due else {
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(Self.quietPeriod - idle))) { [self] in
                runAfterAPause(scheduledAt: scheduled)
            }
            return
        }
        overThreshold.store(false, ordering: .relaxed)
        pending.store(false, ordering: .releasing)
        run()
    }

    /// Copies committed WAL frames back into the file; truncates the WAL once it passed the
    /// threshold and no reader pins it.
    func run() {
        handle.withLock { handle in
            guard let handle else { return }
            do {
                let (frames, _) = try handle.checkpoint(.passive)
                if frames * currentPageSize.load(ordering: .relaxed) >= truncationThreshold {
                    handle.setBusyTimeout(milliseconds: 0)
                    defer { handle.setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
                    _ = try? handle.checkpoint(.truncate)
                }
            } catch {
                logger.warning("Coffer: checkpoint failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Runs `body` with the checkpointer's handle, first opening one with `open` when there is none
    /// (a key rotation that failed after swapping the file could not reopen it).
    /// - Throws: ``DatabaseError`` `.closed` after ``close()``; whatever `open` or `body` throws.
    func withHandle<T>(
        openingWith open: () throws -> SQLiteConnection, _ body: (SQLiteConnection) throws -> T
    ) throws -> T {
        try handle.withLock { current in
            guard !closed.load(ordering: .acquiring) else { throw activity.closedError }
            if let current { return try body(current) }
            let opened = try open()
            current = opened
            return try body(opened)
        }
    }

    /// Replaces the handle after the file was swapped (the old one is closed first).
    func replaceHandle(with newHandle: SQLiteConnection?, pageSize: Int) {
        queue.sync {}
        handle.withLock { handle in
            handle?.close()
            handle = newHandle
        }
        currentPageSize.store(pageSize, ordering: .relaxed)
    }

    /// Checkpoints and truncates the WAL without waiting: where a reader pins the WAL (or a
    /// writer holds it), this copies what it can and leaves the rest for a later checkpoint.
    func truncateWithoutWaiting() {
        handle.withLock { handle in
            guard let handle else { return }
            handle.setBusyTimeout(milliseconds: 0)
            defer { handle.setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
            _ = try? handle.checkpoint(.truncate)
        }
    }

    /// Waits for a scheduled checkpoint to finish, then closes the handle for good.
    ///
    /// - Parameter truncating: Whether to checkpoint and truncate the WAL first (what
    ///   `Database.close(timeout:)` does; a closing handle only checkpoints when
    ///   it is the file's last).
    func close(truncating: Bool = false) {
        queue.sync {}
        handle.withLock {
            if truncating, let handle = $0 {
                handle.setBusyTimeout(milliseconds: 0)
                _ = try? handle.checkpoint(.truncate)
            }
            closed.store(true, ordering: .releasing)
            $0?.close()
            $0 = nil
        }
    }
}
