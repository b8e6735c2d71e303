import Coffer
import Foundation
public import Logging

/// Keeps a database's synced collections in step with its space on the server: uploads queued
/// local writes, pulls and applies what other devices wrote, follows key rotations, and retries
/// when offline.
///
/// ```swift
/// let replica = try SyncReplica(database: db, collections: [.collection("notes", objects: Note.self)])
/// let engine = try SyncEngine(replica: replica, logger: logger)
/// await engine.start()
/// try await engine.syncNow()
/// ```
public actor SyncEngine {
    /// How often the engine pulls when no notification arrives.
    public var pollInterval: Duration
    /// How long one server call may take before the connection is taken as lost.
    public let callTimeout: Duration
    /// The most rows per push.
    public let uploadBatchSize = 500
    /// The ciphertext bytes after which a push takes no further row: a push is one statement,
    /// and PostgreSQL takes at most 1 GiB per message.
    public let uploadBatchBytes = 8 << 20
    /// The rows sealed per read of the upload queue, pushed `uploadBatchSize` at a time: reading
    /// the queue decodes all of it, so one read per push made a large first upload quadratic.
    public let uploadPreparationSize = 5_000
    /// The sealed bytes after which a read of the upload queue stops sealing, so that rows of
    /// megabytes are not all held in memory at once.
    public let uploadPreparationBytes = 64 << 20
    /// The rows per pull.
    public let pullBatchSize = 1_000

    let replica: SyncReplica
    let logger: Logger
    let makeTransport: SyncTransportFactory
    var credentials: SyncDeviceCredentials
    var sealer: RowSealer
    var transport: (any SyncTransport)?
    var status = SyncStatus()
    var loop: Task<Void, Never>?
    var listenTask: Task<Void, Never>?
    var listenChannel: String?
    var queueEvents: Task<Void, Never>?
    let wake = WakeSignal()
    var roundWaiters: [CheckedContinuation<Void, any Error>] = []
    var retryDelay: Duration = .milliseconds(200)

    /// An engine for `replica`'s database with the credentials stored in it (see
    /// ``SyncSetup``), connecting with postgres-nio.
    ///
    /// - Throws: `SyncError.misuse` when the database holds no credentials.
    public init(
        replica: SyncReplica, logger: Logger, pollInterval: Duration = .seconds(30),
        callTimeout: Duration = .seconds(30)
    ) throws {
        guard let credentials = try replica.credentials() else {
            throw SyncError.misuse("this database has not created or joined a sync space")
        }
        self.init(
            replica: replica, credentials: credentials, logger: logger, pollInterval: pollInterval,
            callTimeout: callTimeout, transport: PostgresTransport.factory(logger: logger))
    }

    init(
        replica: SyncReplica, credentials: SyncDeviceCredentials, logger: Logger, pollInterval: Duration,
        callTimeout: Duration = .seconds(30), transport: @escaping SyncTransportFactory
    ) {
        self.callTimeout = callTimeout
        self.replica = replica
        self.credentials = credentials
        self.logger = logger
        self.pollInterval = pollInterval
        self.makeTransport = transport
        sealer = RowSealer(syncKey: credentials.syncKey, spaceID: credentials.spaceID)
    }

    /// What the engine is doing now.
    public func currentStatus() -> SyncStatus {
        var status = status
        status.queued = (try? replica.queuedCount()) ?? status.queued
        status.cursor = (try? replica.cursor()) ?? status.cursor
        return status
    }

    /// Starts syncing in the background; does nothing if already running.
    ///
    /// The engine connects, then uploads and pulls whenever a local commit queues work, the
    /// server notifies, or the poll interval passes.
    public func start() {
        guard loop == nil else { return }
        status.phase = .connecting
        let events = replica.queue.events()
        let wake = wake
        queueEvents = Task { for await _ in events { wake.signal() } }
        loop = Task { await self.run() }
    }

    /// Runs one round (upload everything queued, pull everything new) as soon as possible and
    /// returns when it finished.
    ///
    /// - Throws: The round's error (`SyncError`), for example `.serverUnreachable` when offline;
    ///   `.misuse` when the engine is not running; the error that stopped it when it failed.
    public func syncNow() async throws {
        guard loop != nil else { throw SyncError.misuse("the sync engine is not running: call start()") }
        if status.phase == .failed, let error = status.lastError { throw error }
        try await withCheckedThrowingContinuation { continuation in
            roundWaiters.append(continuation)
            wake.signal()
        }
    }

    /// Stops syncing and closes the connections; queued work stays queued for the next start.
    public func stop() async {
        loop?.cancel()
        listenTask?.cancel()
        queueEvents?.cancel()
        wake.signal()
        await loop?.value
        loop = nil
        listenTask = nil
        queueEvents = nil
        await disconnect()
        status.phase = .stopped
        finishWaiters(with: SyncError.misuse("the sync engine stopped"))
    }

    func finishWaiters(with error: (any Error)?) {
        let waiters = roundWaiters
        roundWaiters.removeAll()
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    func disconnect() async {
        listenTask?.cancel()
        listenTask = nil
        listenChannel = nil
        // Not awaited: closing waits for the connection's call in progress, which may hang
        // on a network that holds packets.
        if let transport { Task { await transport.close() } }
        transport = nil
    }
}
