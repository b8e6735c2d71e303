public import Foundation
public import Logging
import PostgresNIO

/// What an administrator does on the server with the role that owns the schema: apply the
/// schema, create and drop spaces, enroll and revoke devices.
///
/// Each call opens its own connection and closes it. The admin role needs CREATEROLE (it
/// creates the device roles) and, for `initServer()`, CREATE on the database.
public struct SyncServerAdmin: Sendable {
    /// The server, database and admin role.
    public let address: SyncServerAddress
    private let logger: Logger

    /// Describes an admin session; nothing connects until a call.
    public init(address: SyncServerAddress, logger: Logger = Logger(label: "coffer.sync.admin")) {
        self.address = address
        self.logger = logger
    }

    /// The schema version the server records, nil when the schema is not there.
    public func schemaVersion() async throws -> Int? {
        try await withConnection { connection in
            try await ServerChecks.schemaVersion(connection, logger: logger)
        }
    }

    /// Applies the shipped schema (`schema/coffer-sync.sql`) and returns the version it records.
    ///
    /// One transaction; safe to repeat. Throws `.schemaVersionMismatch` (changing nothing) when
    /// the server holds another version.
    @discardableResult
    public func initServer() async throws -> Int {
        try await withConnection { connection in
            let found = try await ServerChecks.schemaVersion(connection, logger: logger)
            if let found, found != ServerSchema.version {
                throw SyncError.schemaVersionMismatch(expected: ServerSchema.version, found: found)
            }
            // Re-applying takes table locks while devices work; PostgreSQL resolves a deadlock by
            // failing one side, and when that is this side, applying again succeeds.
            let errors = ServerErrors(server: address.server, space: nil)
            for attempt in 1... {
                do {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in SQLScript.statements(ServerSchema.sql) {
                            try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                    }
                    break
                } catch {
                    guard attempt < 5, case .server(code: "40P01", _)? = errors.map(error) as? SyncError else {
                        throw error
                    }
                    try await Task.sleep(for: .milliseconds(50 * attempt))
                }
            }
            logger.info("applied the coffer_sync schema", metadata: ["server": "\(address.server)"])
            return ServerSchema.version
        }
    }

    /// Creates a space with its key check and channel (DESIGN.md derives both from the sync key).
    ///
    /// `keyEpoch` is 1 for a space's first sync key. Throws `.server` if the space exists.
    public func createSpace(spaceID: UUID, keyCheck: Data, channel: String, keyEpoch: Int = 1) async throws {
        try await withConnection { connection in
            try await connection.run(
                """
                INSERT INTO coffer_sync.spaces (space_id, key_epoch, key_check, last_seq, channel)
                VALUES (\(spaceID), \(keyEpoch), \(keyCheck), 0, \(channel))
                """,
                logger: logger
            )
        }
    }

    /// Every space on the server.
    public func spaces() async throws -> [SpaceInfo] {
        try await withConnection { connection in
            let rows = try await connection.rows(
                "SELECT space_id, key_epoch, key_check, channel, last_seq FROM coffer_sync.spaces ORDER BY space_id",
                logger: logger
            )
            return try rows.map(SpaceInfo.init(row:))
        }
    }

    /// The devices of a space, revoked ones included.
    public func devices(spaceID: UUID) async throws -> [DeviceRecord] {
        try await withConnection { connection in
            try await DeviceQueries.devices(of: spaceID, on: connection, logger: logger)
        }
    }

    /// Creates a device of `spaceID`: its LOGIN role and its devices row (the same rules as
    /// `SyncServerConnection.enroll`; the password leaves only as a SCRAM verifier).
    public func enrollDevice(
        spaceID: UUID,
        deviceID: UUID,
        roleName: String,
        password: String,
        publicKey: Data
    ) async throws {
        try DeviceQueries.validate(roleName: roleName)
        let verifier = try ScramVerifier.verifier(password: password)
        try await withConnection(space: spaceID) { connection in
            try await connection.run(
                """
                SELECT coffer_sync.create_device(\(spaceID), \(deviceID), \(roleName), \(verifier), \(publicKey))
                """,
                logger: logger
            )
        }
    }

    /// Revokes a device of `spaceID` (see `SyncServerConnection.revoke`).
    public func revokeDevice(spaceID: UUID, deviceID: UUID) async throws {
        try await withConnection(space: spaceID) { connection in
            try await connection.run("SELECT coffer_sync.revoke_device_in(\(spaceID), \(deviceID))", logger: logger)
        }
    }

    /// Deletes a space with its rows, keys and devices, and drops its device roles.
    public func dropSpace(spaceID: UUID) async throws {
        try await withConnection(space: spaceID) { connection in
            try await connection.withTransaction(logger: logger) { connection in
                let roles = try await connection.rows(
                    "SELECT role_name FROM coffer_sync.devices WHERE space_id = \(spaceID)", logger: logger
                ).map { try $0.decode(String.self) }
                try await connection.run("DELETE FROM coffer_sync.spaces WHERE space_id = \(spaceID)", logger: logger)
                for role in roles {
                    // An identifier cannot be a bind parameter; the schema only stores names of
                    // the form coffer_[a-z0-9_]+, checked again here before quoting.
                    try DeviceQueries.validate(roleName: role)
                    try await connection.run(
                        PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \"\(role)\""), logger: logger)
                }
            }
        }
    }

    private func withConnection<Result: Sendable>(
        space: UUID? = nil,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await ServerConnector.open(address, logger: logger)
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw ServerErrors(server: address.server, space: space).map(error)
        }
    }
}
