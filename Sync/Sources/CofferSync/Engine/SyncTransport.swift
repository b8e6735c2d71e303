import Foundation

/// What the server says of the device's space: its key epoch, key check and channel, and its
/// highest sequence number (for first-sync progress).
struct SpaceState: Sendable, Hashable {
    var keyEpoch: Int
    var keyCheck: Data
    var channel: String
    var lastSequence: Int64
}

/// The server as the engine needs it; the PostgreSQL client adapts to it (``PostgresTransport``),
/// and tests wrap that one to cut the network (`SeveringTransport`).
protocol SyncTransport: Sendable {
    /// The device's space. Throws `SyncError.schemaVersionMismatch`, `.spaceNotFound`, `.deviceRevoked`…
    func space() async throws -> SpaceState
    /// Pushes sealed rows with optimistic concurrency; one outcome per upload, in order.
    func push(_ uploads: [PreparedUpload]) async throws -> [UploadOutcome]
    /// Rows stored after `cursor`, in sequence order, at most `limit`.
    func pull(after cursor: Int64, limit: Int) async throws -> [PulledRow]
    /// This device's sealed copy of the space's key of `epoch`, if the server holds one.
    func sealedKey(epoch: Int, device: UUID) async throws -> Data?
    /// Wake-ups when rows were pushed to the space (LISTEN/NOTIFY); finishes when the
    /// transport closes.
    func wakeUps(channel: String) async throws -> AsyncStream<Void>
    /// Closes the connections.
    func close() async
}

/// Makes a transport for stored credentials (a new connection after a failure).
typealias SyncTransportFactory = @Sendable (SyncDeviceCredentials) async throws -> any SyncTransport
