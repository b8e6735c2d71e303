import CofferSQLite
import Dispatch
import Foundation
import Synchronization

/// One line of access to a ``Database``: a serial queue, an SQLite handle and its own caches.
///
/// A connection runs one transaction at a time; synchronous and asynchronous transactions
/// share its queue in submission order. Use several connections for concurrency: readers
/// never block each other or the (single) writer. Connections are cheap to keep and meant to
/// be long-lived: their caches make repeated reads free.
///
/// Once its database is closed (``Database/close(timeout:)-11g9c``), every throwing call throws
/// ``DatabaseError`` `.closed`, callback-style calls pass that error to their completion, and the
/// rest (``snapshot``, ``name``, the cache settings, ``flushMemory(_:)``) stay harmless.
public final class Connection: Sendable {
    /// The database this connection reads and writes.
    public let database: Database
    /// A process-unique number, also carried by the ``Changeset``s this connection commits.
    public let id: UInt64
    let queue: DispatchQueue
    let core: ConnectionCore
    let status: Locked<ConnectionStatus>
    let pending = Atomic<Int>(0)
    /// Whether a catch-up is queued and has not started yet (see ``scheduleCatchUp()``).
    private let catchUpQueued = Atomic<Bool>(false)

    init(database: Database, config: ConnectionConfig) throws {
        self.database = database
        self.id = database.allocateConnectionID()
        self.queue = DispatchQueue(label: "coffer.connection.\(id)")
        let (handle, generation) = try database.dequeueHandle() ?? database.openHandle()
        let snapshot = database.snapshot
        self.core = ConnectionCore(
            database: database, id: id, sqlite: handle, generation: generation, config: config, snapshot: snapshot)
        self.status = Locked(ConnectionStatus(config: config))
        database.attach(self)
        // A close that ran meanwhile did not see this connection's handle: the deinitializer closes it.
        try database.gate.checkOpen()
    }

    deinit {
        database.unregister(connectionID: id)
        core.releaseHandle()
    }

    /// A name for logs and for the ``Changeset``s this connection commits.
    public var name: String? {
        get { status.withLock { $0.name } }
        set { status.withLock { $0.name = newValue } }
    }

    /// The snapshot this connection sees: inside a transaction, the snapshot the transaction
    /// started at; between transactions, the latest committed one (the next transaction sees it).
    public var snapshot: UInt64 {
        let (pinned, last) = status.withLock { ($0.transactionSnapshot, $0.lastSnapshot) }
        if let pinned { return pinned }
        // A reader can see a commit before the writer has published it to the database:
        // never report less than what this connection already saw.
        return max(last, database.snapshot)
    }

    /// Transactions queued or running on this connection (used by ``ConnectionPool`` to balance load).
    public var pendingTransactionCount: Int { pending.load(ordering: .relaxed) }

    // MARK: Cache settings (changeable at any time; a running transaction applies them at once)

    /// Whether deserialized objects are cached.
    public var objectCacheEnabled: Bool {
        get { status.withLock { $0.config.objectCacheEnabled } }
        set { updateConfig { $0.objectCacheEnabled = newValue } }
    }

    /// The object cache's entry limit (0 = unlimited).
    public var objectCacheLimit: Int {
        get { status.withLock { $0.config.objectCacheLimit } }
        set { updateConfig { $0.objectCacheLimit = max(0, newValue) } }
    }

    /// Whether deserialized metadata is cached.
    public var metadataCacheEnabled: Bool {
        get { status.withLock { $0.config.metadataCacheEnabled } }
        set { updateConfig { $0.metadataCacheEnabled = newValue } }
    }

    /// The metadata cache's entry limit (0 = unlimited).
    public var metadataCacheLimit: Int {
        get { status.withLock { $0.config.metadataCacheLimit } }
        set { updateConfig { $0.metadataCacheLimit = max(0, newValue) } }
    }

    private func updateConfig(_ body: (inout ConnectionConfig) -> Void) {
        status.withLock { body(&$0.config) }
        if TransactionGuard.isInside(connection: id) {
            core.applySettings(status.withLock { $0.config })
        }
    }

    /// Called by the database after a sibling commits: bring the caches forward between transactions.
    ///
    /// Requests coalesce: while one catch-up is queued, later commits add nothing, since it follows the
    /// newest snapshot when it runs; queuing one per commit would wake a thread per commit and sibling
    /// under a busy writer. The flag is cleared before the catch-up reads the snapshot,
    /// so a commit published after that point queues a new one.
    func scheduleCatchUp() {
        guard !catchUpQueued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [weak self] in
            guard let self else { return }
            self.catchUpQueued.store(false, ordering: .releasing)
            self.core.catchUpIdle()
        }
    }

    /// Runs `body` on this connection's queue with its handle in use (or directly when already
    /// inside one of its transactions).
    func onQueue<T>(_ body: () throws -> T) throws -> T {
        if TransactionGuard.isInside(connection: id) { return try core.withAccess(body) }
        return try queue.sync {
            try TransactionGuard.inside(connection: id, write: false) { try core.withAccess(body) }
        }
    }
}

/// Connection state readable from any thread.
struct ConnectionStatus {
    var name: String?
    var config: ConnectionConfig
    /// Set while a transaction (or a long-lived read) is open: the snapshot it sees.
    var transactionSnapshot: UInt64?
    var isLongLived = false
    /// The snapshot the last transaction saw.
    var lastSnapshot: UInt64 = 0
}
