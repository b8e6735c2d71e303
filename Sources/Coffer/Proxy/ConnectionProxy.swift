import Dispatch
import Synchronization

/// A write-behind layer over two connections: changes are readable through the proxy at once and
/// written to the database shortly after, coalesced into as few read-write transactions as possible
/// (YapDatabase's `YapDatabaseConnectionProxy`).
///
/// Use a proxy for rows one component owns — settings, a download manager's records — where a
/// writer should never wait for the disk:
///
/// ```swift
/// let proxy = try ConnectionProxy(database: db)
/// proxy.setObject("dark", forKey: "theme", inCollection: "settings")
/// try proxy.object(forKey: "theme", inCollection: "settings", as: String.self)  // "dark", at once
/// try proxy.flush()                                                              // committed
/// ```
///
/// How writes happen: the first change to a clean proxy queues an asynchronous read-write
/// transaction on ``writeConnection``. The transaction takes every change made up to the moment
/// it **begins**, so a burst of changes made while an earlier write is queued or running ends up
/// in one transaction. When a batch commits, the proxy forgets the values it wrote unless they
/// were changed again in the meantime. A batch that fails keeps its values pending (they stay
/// readable), reports its error through ``flush()-9k58q`` and ``lastWriteError``, and is written again
/// on the next change or flush — values never silently vanish while the proxy lives.
///
/// Caveats, as in YapDatabase: the proxy assumes it owns its rows. Another connection reading a
/// row before the proxy wrote it sees the old value, and a value another connection writes can be
/// overwritten by the proxy's next batch. Pending changes that were never written are lost when
/// the proxy is released after a failed batch; call ``flush()-9k58q`` before letting go of one.
/// ``Database/close(timeout:)-11g9c`` flushes every live proxy of the database first.
public final class ConnectionProxy: Sendable {
    /// The database the proxy reads and writes.
    public let database: Database
    /// The connection reads go through when the proxy has no pending value for a row.
    public let readConnection: Connection
    /// The connection the proxy's batches are written on.
    public let writeConnection: Connection

    /// A process-unique number; the proxy's commits carry it in a ``ConnectionProxyCommit``.
    public let id: UInt64
    let state = Locked(ProxyState())
    /// Where batch completions run; never runs caller code.
    let completionQueue: DispatchQueue
    static let completionQueueKey = DispatchSpecificKey<UInt64>()
    private static let nextID = Atomic<UInt64>(1)

    /// Creates a proxy with two new connections of its own: one for reads, one for writes.
    /// - Throws: ``DatabaseError`` when a connection cannot be opened (`.closed` when the database is).
    public convenience init(database: Database) throws {
        let read = try database.newConnection()
        read.name = "coffer.proxy.read"
        let write = try database.newConnection()
        write.name = "coffer.proxy.write"
        try self.init(readConnection: read, writeConnection: write)
    }

    /// Creates a proxy over connections the caller already has (they may be shared with other code).
    ///
    /// The read connection should not be used inside a transaction of its own by the thread that
    /// reads through the proxy, and the write connection serves the proxy's batches one at a time.
    /// - Throws: ``DatabaseError`` `.misuse` when the connections belong to different databases,
    ///   `.closed` when the database is closed.
    public init(readConnection: Connection, writeConnection: Connection) throws {
        try writeConnection.database.gate.checkOpen()
        guard readConnection.database === writeConnection.database else {
            throw DatabaseError(.misuse, "the proxy's read and write connections belong to different databases")
        }
        self.database = writeConnection.database
        self.readConnection = readConnection
        self.writeConnection = writeConnection
        let id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.id = id
        self.completionQueue = DispatchQueue(label: "coffer.proxy.\(id)")
        completionQueue.setSpecific(key: Self.completionQueueKey, value: id)
        database.closeParticipants.withLock { $0.add(self) }
    }

    /// Which collections reads may fetch from the database (default: all).
    ///
    /// A read of a collection the filter rejects sees only the proxy's pending values, never the
    /// database — useful when the proxy owns whole collections and the database's copy is stale
    /// by design. Writes are not affected.
    public var fetchedCollectionsFilter: AllowList<String> {
        get { state.withLock { $0.filter } }
        set { state.withLock { $0.filter = newValue } }
    }

    /// The number of rows with a change not yet committed (pending or in a batch being written).
    public var pendingChangeCount: Int {
        state.withLock { $0.rows.count }
    }

    /// Whether the proxy holds a change for the row that is not committed yet.
    public func hasPendingChange(forKey key: String, inCollection collection: String?) -> Bool {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        return state.withLock { $0.rows[ck] != nil }
    }

    /// The error of the most recent batch that failed, or nil once a later batch succeeded.
    public var lastWriteError: (any Error)? {
        state.withLock { $0.lastError }
    }
}
