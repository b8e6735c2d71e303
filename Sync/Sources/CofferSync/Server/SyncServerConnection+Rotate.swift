public import Foundation
import PostgresNIO

extension SyncServerConnection {
    /// Moves the space to a new sync key, all in one transaction.
    ///
    /// Bumps the key epoch to `newEpoch`, stores its key check and channel and the new key
    /// sealed to each remaining device, replaces every row of the space with `rows` (sealed
    /// under the new key), and revokes `revoking` if given. Returns the space's last sequence
    /// number afterwards.
    ///
    /// Only if the space is still at `newEpoch - 1`: otherwise throws
    /// `SyncError.keyEpochChanged` and changes nothing (another device rotated first). And only
    /// if the space's last sequence number is still `pulledThrough`, the one the caller read the
    /// space's rows through: otherwise throws `SyncError.spaceChanged` and changes nothing,
    /// because rows pushed since would be replaced by a set that lacks them. Both the old and
    /// the new channel are notified on commit, so that listeners on either wake up. `rows` get
    /// fresh sequence numbers after every earlier one; their `sequence` is ignored.
    @discardableResult
    public func rotate(
        newEpoch: Int,
        pulledThrough: Int64,
        keyCheck: Data,
        channel: String,
        sealedKeys: [UUID: Data],
        rows: [ServerRow],
        revoking: UUID?
    ) async throws -> Int64 {
        try RotationPlan.validate(newEpoch: newEpoch, sealedKeys: sealedKeys, rows: rows, revoking: revoking)
        return try await withSession { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await rotate(
                    newEpoch: newEpoch, pulledThrough: pulledThrough, keyCheck: keyCheck, channel: channel,
                    sealedKeys: sealedKeys, rows: rows,
                    revoking: revoking, on: connection
                )
            }
        }
    }

    private func rotate(
        newEpoch: Int,
        pulledThrough: Int64,
        keyCheck: Data,
        channel: String,
        sealedKeys: [UUID: Data],
        rows: [ServerRow],
        revoking: UUID?,
        on connection: PostgresConnection
    ) async throws -> Int64 {
        let space = try await lockSpace(connection)
        guard space.epoch == newEpoch - 1 else {
            throw SyncError.keyEpochChanged(space: spaceID, expected: newEpoch - 1, current: space.epoch)
        }
        // Checked under the space's lock, which every push takes first: no push can commit
        // between this check and the rotation's commit.
        guard space.last == pulledThrough else {
            throw SyncError.spaceChanged(space: spaceID, pulledThrough: pulledThrough, current: space.last)
        }
        try await connection.run("DELETE FROM coffer_sync.rows WHERE space_id = \(spaceID)", logger: logger)
        try await connection.run("DELETE FROM coffer_sync.space_keys WHERE space_id = \(spaceID)", logger: logger)
        let devices = Array(sealedKeys.keys)
        if !devices.isEmpty {
            try await connection.run(
                """
                INSERT INTO coffer_sync.space_keys (space_id, key_epoch, device_id, sealed_key)
                SELECT \(spaceID), \(newEpoch), * FROM unnest(
                    \(devices)::uuid[], \(devices.map { ByteBuffer(bytes: sealedKeys[$0] ?? Data()) })::bytea[])
                """,
                logger: logger
            )
        }
        var numbered = rows
        for index in numbered.indices { numbered[index].sequence = space.last + Int64(index) + 1 }
        let last = space.last + Int64(rows.count)
        for chunk in RowWriter.chunks(numbered) {
            try await RowWriter.upsert(chunk, space: spaceID, on: connection, logger: logger)
        }
        try await connection.run(
            """
            UPDATE coffer_sync.spaces SET key_epoch = \(newEpoch), key_check = \(keyCheck), channel = \(channel),
                last_seq = \(last)
            WHERE space_id = \(spaceID)
            """,
            logger: logger
        )
        // Last: a device revoking itself loses its view of the space with this statement.
        if let revoking {
            try await connection.run("SELECT coffer_sync.revoke_device(\(revoking))", logger: logger)
        }
        try await connection.run("SELECT pg_notify(\(space.channel), '')", logger: logger)
        if channel != space.channel {
            try await connection.run("SELECT pg_notify(\(channel), '')", logger: logger)
        }
        return last
    }
}

/// The checks a rotation passes before anything is sent.
enum RotationPlan {
    /// Refuses rows and keys that the rotation would store wrongly.
    static func validate(newEpoch: Int, sealedKeys: [UUID: Data], rows: [ServerRow], revoking: UUID?)
        throws(SyncError)
    {
        guard (2...Int(Int32.max)).contains(newEpoch) else {
            throw .misuse("a rotation moves to key epoch 2 or later, not \(newEpoch)")
        }
        if let revoking, sealedKeys[revoking] != nil {
            throw .misuse("a rotation must not seal the new key to the device it revokes")
        }
        var seen: Set<Data> = []
        for row in rows {
            guard row.keyEpoch == newEpoch else {
                throw .misuse("row \(row.rowID.syncHex) is sealed under epoch \(row.keyEpoch), not \(newEpoch)")
            }
            guard row.rowID.count == 32, row.version >= 1 else {
                throw .misuse("row \(row.rowID.syncHex): a row id is 32 bytes and a version at least 1")
            }
            guard seen.insert(row.rowID).inserted else {
                throw .misuse("row \(row.rowID.syncHex) appears twice in a rotation")
            }
        }
    }
}
