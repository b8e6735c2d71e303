public import Foundation
public import Logging
import PostgresNIO

/// A device's connection to its sync space on the server: push, pull, keys and devices.
///
/// One PostgreSQL connection, logged in with the device's own role, used by one operation at a
/// time (a transaction must not see another caller's statements). When the server goes away,
/// the failing call throws `SyncError.serverUnreachable` and the next call connects again, so a
/// caller retries by calling again. Call `close()` when done.
public actor SyncServerConnection {
    /// The server and role this connection logs in with.
    public nonisolated let address: SyncServerAddress
    /// The space this device belongs to.
    public nonisolated let spaceID: UUID

    let logger: Logger
    let errors: ServerErrors
    private var connection: PostgresConnection?
    private var closed = false
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    private init(address: SyncServerAddress, spaceID: UUID, logger: Logger) {
        self.address = address
        self.spaceID = spaceID
        self.logger = logger
        self.errors = ServerErrors(server: address.server, space: spaceID)
    }

    deinit {
        // Closing is asynchronous; the closure keeps the connection alive until it is closed.
        if let connection { connection.close().whenComplete { _ in _ = connection } }
    }

    /// Connects as a device of `space`, checking the server's schema version and that the role
    /// belongs to that space.
    ///
    /// Throws `SyncError.serverUnreachable`, `.authenticationFailed` (wrong role or password),
    /// `.deviceRevoked`, `.schemaVersionMismatch` (no schema, or another version) or
    /// `.spaceNotFound` (the role is no device of `space`).
    public static func connect(
        to address: SyncServerAddress,
        space: UUID,
        logger: Logger = Logger(label: "coffer.sync.server")
    ) async throws -> SyncServerConnection {
        let server = SyncServerConnection(address: address, spaceID: space, logger: logger)
        try await server.withSession { _ in }
        return server
    }

    /// Closes the connection; later calls throw `SyncError.misuse`.
    public func close() async {
        closed = true
        await acquire()
        defer { release() }
        if let connection {
            self.connection = nil
            try? await connection.close()
        }
    }

    /// Runs `body` with the connection to itself, opening (and checking) one first if needed.
    ///
    /// Errors leave as `SyncError`; a connection that broke is dropped so the next call reopens.
    func withSession<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        guard !closed else { throw SyncError.misuse("the sync server connection was closed") }
        await acquire()
        defer { release() }
        do {
            let connection = try await openIfNeeded()
            return try await body(connection)
        } catch {
            let mapped = errors.map(error)
            if let connection, connection.isClosed || mapped is CancellationError {
                self.connection = nil
                try? await connection.close()
            }
            throw mapped
        }
    }

    private func openIfNeeded() async throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        let opened = try await ServerConnector.open(address, logger: logger)
        do {
            try await ServerChecks.check(opened, space: spaceID, errors: errors, logger: logger)
        } catch {
            try? await opened.close()
            throw error
        }
        connection = opened
        return opened
    }

    /// Why the space row is not visible to this role: revoked, or not a device of the space.
    func missingSpaceError(_ connection: PostgresConnection) async -> SyncError {
        let revoked = try? await ServerChecks.whoami(connection, logger: logger)?.revoked
        return revoked == true ? .deviceRevoked(server: address.server) : .spaceNotFound(space: spaceID)
    }

    // One operation at a time, first come first served: the actor alone would interleave
    // operations at every await on the connection.
    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
