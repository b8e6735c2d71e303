import Foundation
import PostgresNIO

extension SyncServerConnection {
    /// The most rows one pull may ask for: bounds the memory a single answer takes.
    public static let maximumPullLimit = 10_000
    /// The ciphertext bytes after which a pull's answer stops (it holds at least one row, so it
    /// may pass this by one row's size): rows of megabytes must not make an answer of gigabytes,
    /// which PostgreSQL cannot send (1 GiB per message) and a device should not hold at once.
    public static let pullByteBudget = 16 << 20

    /// The space's current record: key epoch, key check, channel and last sequence number.
    public func space() async throws -> SpaceInfo {
        try await withSession { connection in
            let rows = try await connection.rows(
                """
                SELECT space_id, key_epoch, key_check, channel, last_seq
                FROM coffer_sync.spaces WHERE space_id = \(spaceID)
                """,
                logger: logger
            )
            guard let row = rows.first else { throw await missingSpaceError(connection) }
            return try SpaceInfo(row: row)
        }
    }

    /// Writes rows in one transaction, each only if the server still holds its base version.
    ///
    /// Requests are decided in order, as if one after the other: a later request may build on
    /// an earlier one of the same batch. Accepted rows get sequence numbers in commit order
    /// (the space's row is locked for the transaction) and the space's channel is notified on
    /// commit. Throws `SyncError.keyEpochChanged` (nothing written) when a row is sealed under
    /// another epoch than the space's current one, and `.misuse` for a malformed request.
    public func push(_ requests: [PushRequest]) async throws -> [PushOutcome] {
        try PushPlan.validate(requests)
        guard !requests.isEmpty else { return [] }
        return try await withSession { connection in
            var attempt = 1
            while true {
                do {
                    return try await connection.withTransaction(logger: logger) { connection in
                        try await push(requests, on: connection)
                    }
                } catch  where attempt < Self.maximumPushAttempts && ServerErrors.isTransient(error) {
                    // PostgreSQL rolled the whole push back (it chose this side of a deadlock,
                    // or a serialization failure): nothing was written, so running it again
                    // is safe, after a pause that keeps two pushers from meeting again in step.
                    let pause = Self.pushRetryPause(attempt: attempt)
                    logger.debug(
                        "push rolled back by the server; retrying",
                        metadata: [
                            "sqlstate": "\(ServerErrors.sqlState(of: error) ?? "")", "attempt": "\(attempt)",
                            "pause": "\(pause)",
                        ])
                    try await Task.sleep(for: pause)
                    attempt += 1
                }
            }
        }
    }

    /// How many times one push runs when PostgreSQL rolls it back for a deadlock or a
    /// serialization failure (SQLSTATE 40P01, 40001) before the error reaches the caller.
    static let maximumPushAttempts = 5

    /// The pause before attempt `attempt + 1` of a push: 20 ms doubling, each drawn at random
    /// between half and all of that.
    static func pushRetryPause(attempt: Int) -> Duration {
        let ceiling = 20 << min(max(attempt - 1, 0), 6)
        return .milliseconds(Int.random(in: (ceiling / 2)...ceiling))
    }

    private func push(_ requests: [PushRequest], on connection: PostgresConnection) async throws -> [PushOutcome] {
        let space = try await lockSpace(connection)
        if let stale = requests.first(where: { $0.row.keyEpoch != space.epoch }) {
            throw SyncError.keyEpochChanged(space: spaceID, expected: stale.row.keyEpoch, current: space.epoch)
        }

        let ids = Array(Set(requests.map(\.row.rowID)))
        var stored: [Data: Int64] = [:]
        let versions = try await connection.rows(
            """
            SELECT row_id, version FROM coffer_sync.rows
            WHERE space_id = \(spaceID) AND row_id = ANY(\(ids.map { ByteBuffer(bytes: $0) }))
            FOR UPDATE
            """,
            logger: logger
        )
        for row in versions {
            let (rowID, version) = try row.decode((Data, Int64).self)
            stored[rowID] = version
        }

        let plan = PushPlan(requests: requests, storedVersions: stored, lastSequence: space.last)
        var current: [Data: ServerRow] = [:]
        if !plan.storedConflictIDs.isEmpty {
            for row in try await rows(matching: plan.storedConflictIDs, on: connection) { current[row.rowID] = row }
        }
        if !plan.writes.isEmpty {
            for chunk in RowWriter.chunks(plan.writes) {
                try await RowWriter.upsert(chunk, space: spaceID, on: connection, logger: logger)
            }
            try await connection.run(
                "UPDATE coffer_sync.spaces SET last_seq = \(plan.lastSequence) WHERE space_id = \(spaceID)",
                logger: logger
            )
            try await connection.run("SELECT pg_notify(\(space.channel), '')", logger: logger)
        }
        return try plan.decisions.map { decision in
            switch decision {
            case .accepted(let sequence): return .accepted(sequence: sequence)
            case .conflictWith(let row): return .conflict(current: row)
            case .conflictWithStored(let rowID):
                // The row was seen at a version under the lock; it cannot have gone since.
                guard let row = current[rowID] else {
                    throw SyncError.server(code: "internal", message: "row \(rowID.syncHex) vanished during a push")
                }
                return .conflict(current: row)
            }
        }
    }

    /// The stored rows with these ids.
    private func rows(matching ids: [Data], on connection: PostgresConnection) async throws -> [ServerRow] {
        let rows = try await connection.rows(
            """
            SELECT row_id, version, device_id, deleted, key_epoch, ciphertext, seq FROM coffer_sync.rows
            WHERE space_id = \(spaceID) AND row_id = ANY(\(ids.map { ByteBuffer(bytes: $0) }))
            """,
            logger: logger
        )
        return try rows.map(ServerRow.init(row:))
    }

    /// Locks the space's row for the transaction (every push and rotation takes it first) and
    /// returns its last sequence number, key epoch and channel.
    func lockSpace(_ connection: PostgresConnection) async throws -> (last: Int64, epoch: Int, channel: String) {
        let rows = try await connection.rows(
            "SELECT last_seq, key_epoch, channel FROM coffer_sync.spaces WHERE space_id = \(spaceID) FOR UPDATE",
            logger: logger
        )
        guard let row = rows.first else { throw await missingSpaceError(connection) }
        return try row.decode((Int64, Int, String).self)
    }

    /// Up to `limit` rows written after `cursor` (a sequence number; 0 for all), in order, and no
    /// more than ``pullByteBudget`` bytes of ciphertext past the first row.
    ///
    /// The next pull passes the last row's `sequence`; an answer with fewer than `limit` rows is
    /// not the end of the space (only an empty one is).
    ///
    /// A pull never skips a row: sequence numbers are assigned under the space's lock in
    /// commit order, so a row committed later always has a higher number.
    public func pull(after cursor: Int64, limit: Int) async throws -> [ServerRow] {
        guard (1...Self.maximumPullLimit).contains(limit) else {
            throw SyncError.misuse("a pull asks for 1 to \(Self.maximumPullLimit) rows, not \(limit)")
        }
        return try await withSession { connection in
            let rows = try await connection.rows(
                """
                SELECT row_id, version, device_id, deleted, key_epoch, ciphertext, seq FROM (
                    SELECT *, sum(octet_length(ciphertext)) OVER (ORDER BY seq) - octet_length(ciphertext) AS before
                    FROM coffer_sync.rows WHERE space_id = \(spaceID) AND seq > \(cursor) ORDER BY seq LIMIT \(limit)
                ) AS page
                WHERE before < \(Int64(Self.pullByteBudget)) ORDER BY seq
                """,
                logger: logger, as: ServerRow.init(row:)
            )
            // Row security shows a revoked device an empty space rather than an error: tell them apart.
            if rows.isEmpty {
                let me = try await ServerChecks.whoami(connection, logger: logger)
                guard let me, me.space == spaceID, !me.revoked else { throw await missingSpaceError(connection) }
            }
            return rows
        }
    }
}
