import Foundation
import Logging
import PostgresNIO

/// The checks a device's fresh connection passes before it is used: the schema's version, and
/// that the role is a live device of the expected space.
enum ServerChecks {
    /// The schema version recorded by the server, nil when there is no `coffer_sync` schema.
    static func schemaVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let exists = try await connection.rows(
            "SELECT to_regclass('coffer_sync.meta') IS NOT NULL", logger: logger
        ).first?.decode(Bool.self)
        guard exists == true else { return nil }
        let rows = try await connection.rows(
            "SELECT value FROM coffer_sync.meta WHERE key = 'schema_version'", logger: logger
        )
        return try rows.first.flatMap { Int(try $0.decode(String.self)) }
    }

    /// The device the logged-in role is, if any.
    static func whoami(
        _ connection: PostgresConnection, logger: Logger
    ) async throws -> (space: UUID, device: UUID, revoked: Bool)? {
        let rows = try await connection.rows(
            "SELECT space_id, device_id, revoked FROM coffer_sync.whoami()", logger: logger
        )
        return try rows.first?.decode((UUID, UUID, Bool).self)
    }

    /// Throws `.schemaVersionMismatch`, `.deviceRevoked` or `.spaceNotFound` unless the
    /// connection's role is a live device of `space` on a server at this package's version.
    static func check(_ connection: PostgresConnection, space: UUID, errors: ServerErrors, logger: Logger)
        async throws
    {
        let found = try await schemaVersion(connection, logger: logger)
        guard found == ServerSchema.version else {
            throw SyncError.schemaVersionMismatch(expected: ServerSchema.version, found: found)
        }
        guard let me = try await whoami(connection, logger: logger), me.space == space else {
            throw SyncError.spaceNotFound(space: space)
        }
        guard !me.revoked else { throw SyncError.deviceRevoked(server: errors.server) }
    }
}
