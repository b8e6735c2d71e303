/// Misuse of a ``MemoryTable`` or of one of its views, reported instead of corrupting what
/// other connections read.
public enum MemoryTableError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another write view is still open: Coffer serializes write transactions, so two writers
    /// at once mean a view was not ended (a committed write view holds the slot until it ends).
    case writeInProgress
    /// The view was ended, rolled back, or its commit was taken back; it reads and writes nothing.
    case viewEnded
    /// A write view was begun at `snapshot`, older than the table's newest version: its changes
    /// would be based on rows another commit has since replaced.
    case staleWrite(snapshot: UInt64, newestVersion: UInt64)
    /// `commit(as:)` was given a version that is not after `latest`, the newest version committed
    /// or snapshot a view was begun at; readers pinned there would see the commit appear.
    case versionNotIncreasing(version: UInt64, latest: UInt64)
    /// A write view changed after `commit(as:)`: its changes are published already.
    case alreadyCommitted
    /// A read view was asked for `snapshot`, below the oldest snapshot the table still answers
    /// for: versions that snapshot needed may have been freed.
    case snapshotReleased(snapshot: UInt64, oldestReadable: UInt64)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .writeInProgress:
            "a memory table write view is already open"
        case .viewEnded:
            "the memory table view was ended"
        case .staleWrite(let snapshot, let newest):
            "a memory table write began at snapshot \(snapshot), older than its newest version \(newest)"
        case .versionNotIncreasing(let version, let latest):
            "memory table version \(version) is not after \(latest), the newest version or pinned snapshot"
        case .alreadyCommitted:
            "the memory table write view was committed already"
        case .snapshotReleased(let snapshot, let oldest):
            "memory table snapshot \(snapshot) was released (the oldest readable snapshot is \(oldest))"
        }
    }
}
