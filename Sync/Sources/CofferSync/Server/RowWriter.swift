import Foundation
import Logging
import PostgresNIO

/// Reads and writes `coffer_sync.rows` in bulk: one statement per chunk, arrays as parameters.
enum RowWriter {
    /// Inserts or replaces `rows` (their `sequence` as given) in one statement.
    static func upsert(
        _ rows: some Collection<ServerRow>, space: UUID, on connection: PostgresConnection, logger: Logger
    )
        async throws
    {
        try await connection.run(
            """
            INSERT INTO coffer_sync.rows (space_id, row_id, version, device_id, deleted, key_epoch, ciphertext, seq)
            SELECT \(space), * FROM unnest(
                \(rows.map { ByteBuffer(bytes: $0.rowID) })::bytea[], \(rows.map(\.version))::int8[],
                \(rows.map(\.deviceID))::uuid[], \(rows.map(\.deleted))::bool[],
                \(rows.map { Int32(clamping: $0.keyEpoch) })::int4[], \(rows.map { ByteBuffer(bytes: $0.ciphertext) })::bytea[],
                \(rows.map(\.sequence))::int8[])
            ON CONFLICT (space_id, row_id) DO UPDATE SET
                version = excluded.version, device_id = excluded.device_id, deleted = excluded.deleted,
                key_epoch = excluded.key_epoch, ciphertext = excluded.ciphertext, seq = excluded.seq
            """,
            logger: logger
        )
    }

    /// The ciphertext bytes after which ``chunks(_:)`` starts a new statement: PostgreSQL takes at
    /// most 1 GiB per message, and a space's rows together may weigh more.
    static let statementBytes = 8 << 20

    /// `rows` cut, in order, into runs of at most ``statementBytes`` bytes of ciphertext past
    /// their first row, one ``upsert(_:space:on:logger:)`` each.
    static func chunks(_ rows: [ServerRow]) -> [ArraySlice<ServerRow>] {
        rows.runs(bytes: statementBytes) { $0.ciphertext.count }
    }
}

extension ServerRow {
    /// A row selected as `row_id, version, device_id, deleted, key_epoch, ciphertext, seq`.
    init(row: PostgresRow) throws {
        let (rowID, version, device, deleted, epoch, ciphertext, sequence) = try row.decode(
            (Data, Int64, UUID, Bool, Int, Data, Int64).self)
        self.init(
            rowID: rowID, version: version, deviceID: device, deleted: deleted, keyEpoch: epoch,
            ciphertext: ciphertext, sequence: sequence)
    }
}

extension SpaceInfo {
    /// A space selected as `space_id, key_epoch, key_check, channel, last_seq`.
    init(row: PostgresRow) throws {
        let (space, epoch, check, channel, last) = try row.decode((UUID, Int, Data, String, Int64).self)
        self.init(spaceID: space, keyEpoch: epoch, keyCheck: check, channel: channel, lastSequence: last)
    }
}
