/// Hands out the least busy of a few connections, for background read work
/// (YapDatabase's `YapDatabaseConnectionPool`).
///
/// Background tasks that share one connection wait for each other, because a connection runs one
/// transaction at a time. A pool creates connections on demand — up to ``connectionLimit`` — and
/// vends the one with the fewest queued or running transactions:
///
/// ```swift
/// let pool = ConnectionPool(database: db)
/// let count = try pool.connection().read { tx in try tx.numberOfKeys(inCollection: "notes") }
/// ```
///
/// Once the database is closed, ``connection()`` throws ``DatabaseError`` `.closed`.
public final class ConnectionPool: Sendable {
    /// How many connections a pool keeps unless told otherwise.
    public static let defaultConnectionLimit = 3

    /// The database the pool's connections belong to.
    public let database: Database

    private struct State {
        var connections: [Connection] = []
        var limit: Int
        var config: ConnectionConfig?
        var didCreateConnection: (@Sendable (Connection) -> Void)?
    }

    private let state: Locked<State>

    /// Creates an empty pool; connections are opened when first needed.
    /// - Parameters:
    ///   - database: The database to connect to.
    ///   - connectionLimit: The most connections the pool keeps (0 means ``defaultConnectionLimit``).
    ///   - connectionConfig: The configuration of new connections (nil: the database's
    ///     ``Database/connectionDefaults`` at the time each one is created).
    ///   - didCreateConnection: Called with each new connection before it is handed out, on the
    ///     thread that asked for it — to name it or tune its caches.
    public init(
        database: Database, connectionLimit: Int = ConnectionPool.defaultConnectionLimit,
        connectionConfig: ConnectionConfig? = nil,
        didCreateConnection: (@Sendable (Connection) -> Void)? = nil
    ) {
        self.database = database
        self.state = Locked(
            State(
                limit: Self.effectiveLimit(connectionLimit), config: connectionConfig,
                didCreateConnection: didCreateConnection))
    }

    /// The most connections the pool keeps; 0 (or less) restores ``defaultConnectionLimit``.
    ///
    /// Lowering the limit drops the pool's newest connections beyond it; callers that still hold
    /// one can keep using it.
    public var connectionLimit: Int {
        get { state.withLock { $0.limit } }
        set {
            let dropped = state.withLock { state -> [Connection] in
                state.limit = Self.effectiveLimit(newValue)
                guard state.connections.count > state.limit else { return [] }
                let extra = Array(state.connections[state.limit...])
                state.connections.removeSubrange(state.limit...)
                return extra
            }
            // Released outside the lock: closing a connection may take a moment.
            _ = dropped
        }
    }

    /// The configuration of connections created from now on (nil: the database's defaults).
    public var connectionConfig: ConnectionConfig? {
        get { state.withLock { $0.config } }
        set { state.withLock { $0.config = newValue } }
    }

    /// Called with each connection the pool creates, before it is handed out.
    public var didCreateConnection: (@Sendable (Connection) -> Void)? {
        get { state.withLock { $0.didCreateConnection } }
        set { state.withLock { $0.didCreateConnection = newValue } }
    }

    /// How many connections the pool holds now.
    public var connectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Returns the pool's least busy connection, creating one when every connection is busy and
    /// the pool is below its limit.
    ///
    /// "Busy" is ``Connection/pendingTransactionCount``: an idle connection is returned at once.
    /// - Complexity: O(``connectionLimit``); opening a new connection opens an SQLite handle.
    /// - Throws: ``DatabaseError`` when a new connection cannot be opened; `.closed` once the
    ///   database is closed.
    public func connection() throws -> Connection {
        try database.gate.checkOpen()
        let (connection, created, callback) = try state.withLock {
            state -> (Connection, Bool, (@Sendable (Connection) -> Void)?) in
            var best: Connection?
            var bestLoad = Int.max
            for candidate in state.connections {
                let load = candidate.pendingTransactionCount
                if load < bestLoad {
                    best = candidate
                    bestLoad = load
                    if load == 0 { break }
                }
            }
            if let best, bestLoad == 0 || state.connections.count >= state.limit {
                return (best, false, nil)
            }
            let connection = try database.newConnection(config: state.config)
            state.connections.append(connection)
            return (connection, true, state.didCreateConnection)
        }
        if created { callback?(connection) }
        return connection
    }

    private static func effectiveLimit(_ limit: Int) -> Int {
        limit > 0 ? limit : defaultConnectionLimit
    }
}
