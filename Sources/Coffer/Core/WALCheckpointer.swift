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
    private let path: String
    private let truncationThreshold: Int
    private let busyTimeoutMilliseconds: Int32
    private let logger: Logger

    init(handle: SQLiteConnection, path: String, pageSize: Int, options: DatabaseOptions, logger: Logger) {
        self.handle = Locked(handle)
        self.path = path
        self.currentPageSize = Atomic(pageSize)
        self.truncationThreshold = options.walTruncationThreshold
        self.busyTimeoutMilliseconds = DatabaseOpener.busyTimeoutMilliseconds(options)
        self.logger = logger
    }

    /// WAL size, in frames, from which a commit schedules a passive checkpoint (SQLite's own
    /// automatic checkpoint uses the same figure; Coffer runs it in the background instead).
    static let checkpointFrames = 1000

    /// Called after each commit with the WAL's size: schedules a checkpoint once the log has
    /// grown by ``checkpointFrames`` (or by the truncation threshold, if smaller) since the last
    /// one was scheduled. (A log that a reader or a
    /// running checkpoint keeps from restarting would otherwise schedule one after every commit.)
    func noteWAL(frames: Int) {
        let last = framesAtLastSchedule.load(ordering: .relaxed)
        let base = frames < last ? 0 : last  // the log restarted from the beginning
        let step = max(
            1, min(Self.checkpointFrames, truncationThreshold / max(1, currentPageSize.load(ordering: .relaxed))))
        guard frames - base >= step else {
            if base != last { framesAtLastSchedule.store(0, ordering: .relaxed) }
            return
        }
        framesAtLastSchedule.store(frames, ordering: .relaxed)
        schedule()
    }

    /// Runs a checkpoint soon on the checkpoint queue; several requests coalesce into one.
    func schedule() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            pending.store(false, ordering: .releasing)
            run()
        }
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
    /// - Throws: whatever `open` or `body` throws.
    func withHandle<T>(
        openingWith open: () throws -> SQLiteConnection, _ body: (SQLiteConnection) throws -> T
    ) throws -> T {
        try handle.withLock { current in
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

    /// Waits for a scheduled checkpoint to finish, then closes the handle.
    func close() {
        queue.sync {}
        handle.withLock {
            $0?.close()
            $0 = nil
        }
    }
}
