import Foundation
public import Logging

/// Everything that decides how a ``Database`` opens its file.
public struct DatabaseOptions: Sendable {
    /// The SQLCipher key.
    ///
    /// `nil` opens or creates an unencrypted database.
    public var key: DatabaseKey?
    /// SQLCipher's per-file settings; must match the file on every open.
    public var cipher = CipherSettings()
    /// `PRAGMA synchronous` for every connection.
    ///
    /// `.normal` is durable across application crashes in WAL mode; `.full` also across power loss, at the cost of
    /// an fsync per commit.
    public var synchronous: Synchronous = .normal
    /// `PRAGMA journal_size_limit` in bytes: how large the WAL may stay after a checkpoint.
    public var journalSizeLimit: Int?
    /// The SQLite page cache per connection, in KiB (`PRAGMA cache_size = -N`).
    ///
    /// `nil` keeps SQLite's 2 MB. Size it to the working set: decrypting pages is the main cost of SQLCipher.
    public var pageCacheKiB: Int?
    /// `PRAGMA mmap_size` in bytes (0 or nil: off).
    public var mmapSize: Int?
    /// When the WAL grows past this many bytes, Coffer truncates it as soon as no reader pins it.
    ///
    /// Truncating restarts the log, which makes every connection drop its page cache (and decrypt its pages again),
    /// so the default is generous: 64 MiB. Past it, a background checkpoint also stops waiting for a pause in the
    /// transactions.
    public var walTruncationThreshold = 64 * 1024 * 1024
    /// The format new Codable values are written in, where a registration names none: collections
    /// without a codec, ``Database/registerCodable(_:forCollection:format:stages:)`` and
    /// ``Database/register(_:format:stages:)``.
    ///
    /// `.json` by default. Every format is read whatever this says, so changing it leaves existing
    /// rows readable; they are rewritten in the new format when written again or by
    /// ``Database/reencode(collection:batchSize:progress:)``. Coffer versions before the binary
    /// format cannot read `.binary` rows: choose it only when no older version opens the file.
    public var codableFormat = CodableFormat.json
    /// What to do when the file exists but cannot be opened as a database.
    public var corruptAction: CorruptAction = .fail
    /// Whether to create the file when it does not exist.
    public var createIfMissing = true
    /// Whether an existing zero-length file may be turned into a new database.
    ///
    /// Off by default: an empty file where a database was expected usually means data was lost.
    public var treatsEmptyFileAsNew = false
    /// How long a connection waits for a lock held by another process before failing with `.busy`.
    public var busyTimeout: Duration = .seconds(10)
    /// Whether other processes may write the file while this one has it open; off by default.
    ///
    /// YapDatabase calls it `enableMultiProcessSupport`. With it on, every commit also writes its snapshot number to the file, and every transaction
    /// compares that number with the last one this process knows once SQLite has pinned its
    /// snapshot. When another process committed in between, the connection drops its caches,
    /// moves to the file's number and hands on an external reset (``Changeset/isExternal``) to
    /// extension states, long-lived readers and observers, which reload rather than apply row
    /// changes. Every process that opens the file must turn it on and register the same
    /// persistent extensions. See <doc:SeveralProcesses>.
    public var multiProcessSupport = false
    /// How often an idle process looks for other processes' commits where inotify is not
    /// available (with ``multiProcessSupport``); on Linux the write-ahead log is watched instead.
    public var externalCommitPollInterval: Duration = .seconds(1)
    /// Callbacks around ``Database/rotateKey(to:cipher:)``: persist the new key before the swap.
    public var keyRotationHooks = KeyRotationHooks()
    /// The application's logger.
    ///
    /// Coffer logs warnings and errors only, and never secrets or values.
    public var logger: Logger?
    /// The registered SQLite VFS every file of the database (and of its backups and rotations)
    /// is opened through; nil uses SQLite's default.
    ///
    /// Package access on purpose: only Coffer's own tests set it, to the fault-injecting VFS
    /// (`FaultInjectingVFS` in CofferSQLite). Applications never choose a VFS.
    package var vfsName: String?

    /// Creates the default options: no key, automatic page size, `synchronous = NORMAL`.
    public init() {}

    /// `PRAGMA synchronous` levels.
    public enum Synchronous: String, Sendable, Hashable {
        /// No fsync: fastest, may lose recent commits (never corrupt) on power loss.
        case off = "OFF"
        /// Fsync at checkpoints only (WAL): survives application crashes.
        case normal = "NORMAL"
        /// Fsync at every commit: survives power loss.
        case full = "FULL"
    }

    /// What happens when a file exists but is damaged.
    ///
    /// A wrong key never triggers rename or delete: it fails with ``DatabaseError/Code/wrongKey``.
    public enum CorruptAction: Sendable, Hashable {
        /// Fail with an error and leave the file untouched (the default).
        case fail
        /// Move the damaged file aside to `<name>.<n>.corrupt` and create a new database.
        case rename
        /// Delete the damaged file and create a new database.
        case delete
    }
}
