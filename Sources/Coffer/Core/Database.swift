import CofferSQLite
import Dispatch
public import Foundation
import Logging
import Synchronization

/// An encrypted collection/key/value database file, shared by any number of ``Connection``s.
///
/// There is one `Database` per file per process. It owns the file's configuration (key,
/// cipher settings, serializers, object policies), the committed snapshot number, and the
/// single write lock; reading and writing happen through connections:
///
/// ```swift
/// var options = DatabaseOptions()
/// options.key = .raw(dataKey)
/// let db = try Database(url: url, options: options)
/// let conn = try db.newConnection()
/// try conn.readWrite { tx in try tx.setObject(note, forKey: "n1", inCollection: "notes") }
/// try db.close()
/// ```
///
/// ``close(timeout:)-11g9c`` writes what proxies and preferences still hold, waits for running
/// transactions, checkpoints and releases the file; afterwards every throwing call on the
/// database and on everything made from it throws ``DatabaseError`` `.closed`.
public final class Database: Sendable {
    /// The database file.
    public let url: URL
    /// The options the database was opened with, minus the key.
    public let options: DatabaseOptions
    /// The cipher settings in effect for the file (nil for an unencrypted file): the page size is
    /// the file's, whatever was asked for.
    public var cipherSettings: CipherSettings? { handleCipher }
    /// The file's format version (`PRAGMA user_version`; YapDatabase's schema is 3).
    public var formatVersion: Int { 3 }
    /// The SQLite library version underneath SQLCipher, such as "3.15.2".
    public let sqliteVersion: String
    /// The linked SQLCipher version, such as "3.4.1".
    public let cipherVersion: String
    /// The page size of the file in bytes.
    public var pageSize: Int { keying.withLock { $0.pageSize } }

    let canonicalPath: String
    let logger: Logger
    /// How new handles are keyed; replaced by key rotation.
    let keying: Locked<HandleKeying>
    /// `keying`'s generation, stored under its lock, for the check every transaction makes
    /// without taking that lock (a rotation holds the access gate exclusively while it changes).
    let keyingGeneration = Atomic<UInt64>(0)
    /// Held shared by every transaction, exclusively by key rotation, and closed by `close(timeout:)`.
    let gate: DatabaseAccessGate
    /// Serializes calls to `close(timeout:)`.
    let closeQueue = DispatchQueue(label: "coffer.database.close")
    /// Proxies and preferences whose pending writes `close(timeout:)` must commit first.
    let closeParticipants = Locked(CloseParticipants())
    /// Whether a call made after the close was logged (once per database).
    let loggedUseAfterClose = Atomic<Bool>(false)
    /// Handles of released connections, kept for reuse.
    let handlePool = Locked(HandlePool())
    /// The handle Coffer checkpoints with; never used for transactions.
    let checkpointer: WALCheckpointer
    /// Learns of other processes' commits while idle (``DatabaseOptions/multiProcessSupport``).
    let externalCommitWatcher = Locked<ExternalCommitWatcher?>(nil)
    /// Tells a key rotation whether another process has the file open.
    let presenceLock: ProcessPresenceLock
    let state: Locked<DatabaseState>
    let registry = ConfigRegistryStore()
    let extensions = Locked(ExtensionRegistry())
    /// Whether a changing write took the orphaned extensions' names (to drop their tables).
    ///
    /// Atomic rather than in the registry: every commit that changes rows asks, and only the
    /// first gets a true answer.
    let orphanedExtensionsDropped = Atomic<Bool>(false)
    /// Runs asynchronous extension (un)registrations in request order.
    let extensionQueue = DispatchQueue(label: "coffer.database.extensions")
    /// Whether a rebuild of the non-persistent extensions is queued on ``extensionQueue`` and
    /// not started yet (external resets arriving meanwhile need no second one).
    let memoryExtensionRebuildQueued = Locked(false)
    let defaultsStorage: Locked<ConnectionConfig>

    /// Serializes read-write transactions across all connections.
    let writeLock = WriterLock()
    /// Posts notifications in commit order and runs completion callbacks by default.
    let notifier: CommitNotifier
    /// Keeps commits out while a read transaction pins its SQLite snapshot.
    let snapshotGate = SnapshotGate()
    /// The snapshot number the file held when it was opened (see `persistSnapshot()`).
    let openedSnapshot: UInt64

    /// Posted after every commit that changed something; `userInfo["changeset"]` is a ``Changeset`` and `object` is
    /// the database.
    ///
    /// Posted asynchronously, in commit order, on a database-owned queue; the commits of a burst
    /// are posted together, at most about a millisecond after they commit.
    public static let modifiedNotification = Notification.Name("CofferDatabaseModified")
    /// The `userInfo` key of the ``Changeset`` in ``modifiedNotification``.
    public static let changesetKey = "changeset"

    /// Opens (or creates) the database at `url`.
    ///
    /// The key is checked here, by reading the file: a wrong key fails now, not at first use.
    /// A file that cannot be opened is never renamed, deleted or replaced unless
    /// ``DatabaseOptions/corruptAction`` asks for it, and never on a key error.
    /// - Throws: ``DatabaseError`` with `.wrongKey`, `.keyRequired`, `.notEncrypted`,
    ///   `.notADatabase`, `.invalidKey`, `.emptyFile`, `.misuse` (the file is already open in this
    ///   process), `.unsupportedCipherSettings`, `.notSQLCipher`, `.unsupportedFormat`, `.io`, `.corrupt`.
    public init(url: URL, options: DatabaseOptions = DatabaseOptions()) throws {
        let canonicalPath = DatabasePathRegistry.canonicalPath(url)
        guard DatabasePathRegistry.claim(canonicalPath) else {
            throw DatabaseError(
                .misuse, "the file is already open in this process; share its Database instance",
                path: url.path)
        }
        do {
            let opened = try DatabaseOpener(url: url, options: options).open()
            var initialSnapshot = opened.snapshot
            var dataSnapshot: UInt64 = 0
            do {
                self.presenceLock = try ProcessPresenceLock(path: url.path, timeout: options.busyTimeout)
                if options.multiProcessSupport {
                    if presenceLock.isShared {
                        (initialSnapshot, dataSnapshot) = try Self.announceOpening(on: opened.handle, path: url.path)
                    } else {
                        dataSnapshot = try mapSQLite { try Self.readSnapshots(on: opened.handle).1 }
                    }
                }
            } catch {
                opened.handle.close()
                throw error
            }
            self.url = url
            self.canonicalPath = canonicalPath
            var publicOptions = options
            publicOptions.key = nil
            self.options = publicOptions
            self.logger = options.logger ?? Logger(label: "coffer", factory: { _ in SwiftLogNoOpLogHandler() })
            self.sqliteVersion = SQLiteConnection.libraryVersion
            self.cipherVersion = opened.cipherVersion
            self.keying = Locked(
                HandleKeying(key: opened.handleKey, cipher: opened.handleCipher, pageSize: opened.pageSize))
            let gate = DatabaseAccessGate(path: url.path)
            self.gate = gate
            self.checkpointer = WALCheckpointer(
                handle: opened.handle, path: url.path, pageSize: opened.pageSize, activity: gate, options: options,
                logger: logger)
            self.notifier = CommitNotifier(queue: DispatchQueue(label: "coffer.database.notifications"))
            self.openedSnapshot = initialSnapshot
            var state = DatabaseState(
                snapshot: initialSnapshot, previouslyRegisteredExtensionNames: opened.extensionNames)
            state.lastDataSnapshot = dataSnapshot
            self.state = Locked(state)
            self.defaultsStorage = Locked(ConnectionConfig())
            notifier.attach(self)
            extensions.withLock { $0.orphanCandidates = Set(opened.extensionNames) }
            if options.codableFormat != .json {
                registry.update { $0.useAutomaticCodec(writing: options.codableFormat) }
            }
            if options.multiProcessSupport {
                let watcher = ExternalCommitWatcher(path: url.path, pollInterval: options.externalCommitPollInterval) {
                    [weak self] in self?.checkForExternalCommits()
                }
                externalCommitWatcher.withLock { $0 = watcher }
            }
        } catch {
            DatabasePathRegistry.release(canonicalPath)
            throw error
        }
    }

    deinit {
        notifier.finish()
        // `close()` did all of this already, and the path may belong to a newer instance by now.
        guard !gate.isClosed else { return }
        DatabasePathRegistry.beginRelease(canonicalPath)
        externalCommitWatcher.withLock { $0 }?.stop()
        for stream in state.withLock({ $0.takeChangeStreams() }) { stream.finish() }
        persistSnapshot()
        checkpointer.close()
        drainHandlePool()
        presenceLock.release()
        DatabasePathRegistry.release(canonicalPath)
    }

    /// The default location for a database: `$XDG_DATA_HOME/coffer/coffer.db` on Linux
    /// (`~/.local/share/coffer/coffer.db` when unset), Application Support on Apple platforms.
    public static var defaultDatabaseURL: URL {
        #if canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
        #else
            let environment = ProcessInfo.processInfo.environment
            let base: URL
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                base = URL(fileURLWithPath: xdg, isDirectory: true)
            } else {
                base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
            }
        #endif
        return base.appendingPathComponent("coffer", isDirectory: true).appendingPathComponent("coffer.db")
    }

    /// The write-ahead log next to the database file.
    public var walURL: URL { URL(fileURLWithPath: url.path + "-wal") }
    /// The shared-memory index next to the database file.
    public var shmURL: URL { URL(fileURLWithPath: url.path + "-shm") }

    /// The most recent committed snapshot: it grows by one with every read-write transaction
    /// that changed something.
    ///
    /// Saved in the file when the database closes (not by each commit, unless
    /// ``DatabaseOptions/multiProcessSupport`` is on), and the next open goes on from the saved
    /// number. After `close(timeout:)`, the last one.
    public var snapshot: UInt64 { state.withLock { $0.snapshot } }

    /// The cache settings new connections start with.
    ///
    /// Changing them affects only connections created afterwards.
    public var connectionDefaults: ConnectionConfig {
        get { defaultsStorage.withLock { $0 } }
        set { defaultsStorage.withLock { $0 = newValue } }
    }

    /// The extension names recorded in the file when it was opened.
    public var previouslyRegisteredExtensionNames: [String] {
        state.withLock { $0.previouslyRegisteredExtensionNames }
    }

    /// Creates a connection with the database's ``connectionDefaults`` or the given configuration.
    ///
    /// Opening the connection's SQLite handle is cheap with raw and key-file keys; a passphrase
    /// key reuses the key derived when the database was opened.
    /// - Throws: ``DatabaseError`` when the file cannot be opened again (for example it was
    ///   deleted), `.closed` after `close(timeout:)`.
    public func newConnection(config: ConnectionConfig? = nil) throws -> Connection {
        try gate.checkOpen()
        return try Connection(database: self, config: config ?? connectionDefaults)
    }

    /// The key new handles use (nil for an unencrypted file).
    var handleKey: KeyCandidate? { keying.withLock { $0.key } }
    /// The cipher settings new handles use.
    var handleCipher: CipherSettings? { keying.withLock { $0.cipher } }

    /// Opens and configures a new handle for a connection, with the current keying.
    func openHandle() throws -> (handle: SQLiteConnection, generation: UInt64) {
        try gate.checkOpen()
        let keying = keying.withLock { $0 }
        return (try openHandle(key: keying.key, cipher: keying.cipher), keying.generation)
    }

    /// Opens and configures a handle keyed with `handleKey` and `handleCipher`.
    func openHandle(key handleKey: KeyCandidate?, cipher handleCipher: CipherSettings?) throws -> SQLiteConnection {
        try mapSQLite {
            let handle = try SQLiteConnection(path: url.path, create: false, vfs: options.vfsName)
            DatabaseOpener.applyBusyTimeout(handle, options: options)
            if let handleKey {
                try handleKey.bytes.withUnsafeBytes { try handle.applyKey($0) }
                if let handleCipher {
                    try handle.applyCipherSettings(
                        pageSize: handleCipher.pageSize, kdfIterations: handleCipher.kdfIterations,
                        useHMAC: handleCipher.useHMAC)
                }
            }
            try handle.validateReadable()
            try DatabaseOpener.applyConnectionPragmas(handle, options: options)
            handle.onWALCommit { [weak checkpointer] frames in checkpointer?.noteWAL(frames: frames) }
            return handle
        }
    }
}
