/// A key/value table kept only in memory whose readers see the version of their snapshot, for
/// extensions that are not persisted (YapDatabase's `YapMemoryTable`).
///
/// A non-persistent view or index keeps its rows here instead of in the file, and behaves like a
/// persistent one across connections and long-lived reads: a ``ReadView`` pinned to a snapshot
/// sees, for each key, the newest version committed at or below it, whatever is committed
/// later; one ``WriteView`` at a time collects changes and publishes them with
/// ``WriteView/commit(as:)`` under the snapshot number of the database commit they belong to.
///
/// Versions are stored per key, not per commit: a commit adds one version to each key it
/// changes, and a version is freed once no live view (nor a reader that may still begin, see
/// ``retentionFloor``) can see it. A key with no reader behind holds a single version.
///
/// Thread-safe: every view reaches the shared versions under one lock, so connections on
/// different threads use the table at once. Each view is used by one thread at a time.
public final class MemoryTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let state = Locked(State())

    /// Creates an empty table; its first commit may have any version above 0.
    public init() {}

    /// Creates an empty table that asks `retentionFloor` at every pruning for the oldest
    /// snapshot a reader may still begin at (the lowest snapshot a connection may pin).
    init(retentionFloor: @escaping @Sendable () -> UInt64) {
        state.withLock { $0.retentionFloorProvider = retentionFloor }
    }

    /// Opens a view of the table as of `snapshot`, kept readable until the view ends.
    ///
    /// Coffer passes the snapshot its read transaction pinned. Versions the view can see stay
    /// stored while it lives, so a long-lived read keeps seeing the same rows.
    /// - Throws: ``MemoryTableError/snapshotReleased(snapshot:oldestReadable:)`` when `snapshot`
    ///   is below ``oldestReadableSnapshot``.
    public func beginRead(at snapshot: UInt64) throws(MemoryTableError) -> ReadView {
        try state.withLock { state throws(MemoryTableError) in try state.addReader(at: snapshot) }
        return ReadView(table: self, snapshot: snapshot)
    }

    /// Opens the one write view, based on `snapshot` (the snapshot the write transaction began at).
    ///
    /// The slot stays taken until the view ends or rolls back, also after it committed: until
    /// then its base snapshot stays readable, for readers that pinned it before the commit.
    /// - Throws: ``MemoryTableError/writeInProgress`` while another write view is open;
    ///   ``MemoryTableError/staleWrite(snapshot:newestVersion:)`` when `snapshot` is older than
    ///   ``newestVersion``.
    public func beginWrite(at snapshot: UInt64) throws(MemoryTableError) -> WriteView {
        let id = try state.withLock { state throws(MemoryTableError) in try state.addWriter(at: snapshot) }
        return WriteView(table: self, id: id, base: snapshot)
    }

    /// The newest committed version (0 before the first commit).
    public var newestVersion: UInt64 {
        state.withLock { $0.newestVersion }
    }

    /// The oldest snapshot a read view may still begin at: versions older snapshots needed may
    /// have been freed.
    public var oldestReadableSnapshot: UInt64 {
        state.withLock { $0.prunedFloor }
    }

    /// The number of versions stored, over all keys and removals, for tests and diagnostics.
    ///
    /// Once pruning caught up, it is one per visible key plus one per change newer than the
    /// oldest snapshot still readable.
    public var retainedVersionCount: Int {
        state.withLock { $0.retainedVersionCount }
    }

    /// The oldest snapshot a reader that has not begun its view yet may still ask for (nil: none).
    ///
    /// Live views protect their own snapshot. A reader that pins its database snapshot first and
    /// opens its view later (lazily, on first use) is not registered meanwhile: the owner keeps
    /// its snapshot readable by holding this floor at or below the oldest snapshot such a reader
    /// may have pinned. Raising it frees what only older snapshots needed; lowering it cannot
    /// bring back what was freed (``oldestReadableSnapshot`` never goes down).
    public var retentionFloor: UInt64? {
        get { state.withLock { $0.retentionFloor } }
        set {
            state.withLock { state in
                state.retentionFloor = newValue
                state.prune()
            }
        }
    }
}
