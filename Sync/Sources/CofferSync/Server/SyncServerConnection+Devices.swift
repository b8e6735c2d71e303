public import Foundation
import PostgresNIO

extension SyncServerConnection {
    /// The devices of the space, revoked ones included, ordered by role name.
    public func devices() async throws -> [DeviceRecord] {
        try await withSession { connection in
            try await DeviceQueries.devices(of: spaceID, on: connection, logger: logger)
        }
    }

    /// The sync key of `epoch` sealed to `device`'s public key, nil when there is none (an old
    /// epoch, or a device enrolled after the rotation that made it).
    public func sealedKey(epoch: Int, device: UUID) async throws -> Data? {
        try await withSession { connection in
            let rows = try await connection.rows(
                """
                SELECT sealed_key FROM coffer_sync.space_keys
                WHERE space_id = \(spaceID) AND key_epoch = \(epoch) AND device_id = \(device)
                """,
                logger: logger
            )
            return try rows.first?.decode(Data.self)
        }
    }

    /// Enrolls a new device into this device's space: creates its LOGIN role (a member of
    /// `coffer_sync_device`) and its devices row, through the schema's `enroll_device`.
    ///
    /// `roleName` is `coffer_` and 1 to 56 of a-z, 0-9 and _; `password` is printable ASCII
    /// and leaves this process only as a SCRAM-SHA-256 verifier. Throws `.misuse` for a bad
    /// name, password or key, `.server` when the role name or device id is taken.
    public func enroll(deviceID: UUID, roleName: String, password: String, publicKey: Data) async throws {
        try DeviceQueries.validate(roleName: roleName)
        let verifier = try ScramVerifier.verifier(password: password)
        try await withSession { connection in
            try await connection.run(
                "SELECT coffer_sync.enroll_device(\(deviceID), \(roleName), \(verifier), \(publicKey))",
                logger: logger
            )
        }
    }

    /// Revokes a device of this space, through the schema's `revoke_device`.
    ///
    /// Its role may no longer log in, its open sessions see nothing, and the keys sealed to it
    /// are dropped. Revoking an already revoked device does nothing more. Rotating the sync key
    /// is the caller's next step (see `rotate`).
    public func revoke(deviceID: UUID) async throws {
        try await withSession { connection in
            try await connection.run("SELECT coffer_sync.revoke_device(\(deviceID))", logger: logger)
        }
    }
}

/// Queries shared by the device connection and the admin.
enum DeviceQueries {
    /// The devices of `space`, ordered by role name.
    static func devices(of space: UUID, on connection: PostgresConnection, logger: Logger) async throws
        -> [DeviceRecord]
    {
        let rows = try await connection.rows(
            """
            SELECT device_id, role_name, public_key, revoked_at IS NOT NULL FROM coffer_sync.devices
            WHERE space_id = \(space) ORDER BY role_name
            """,
            logger: logger
        )
        return try rows.map { row in
            let (device, role, key, revoked) = try row.decode((UUID, String, Data, Bool).self)
            return DeviceRecord(deviceID: device, roleName: role, publicKey: key, revoked: revoked)
        }
    }

    /// Refuses a role name the schema would refuse, before connecting.
    static func validate(roleName: String) throws(SyncError) {
        let body = roleName.utf8.dropFirst("coffer_".utf8.count)
        guard roleName.hasPrefix("coffer_"), (1...56).contains(body.count),
            body.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else {
            throw .misuse("a device role name is coffer_ and 1 to 56 of a-z, 0-9 and _, not \(roleName)")
        }
    }
}
