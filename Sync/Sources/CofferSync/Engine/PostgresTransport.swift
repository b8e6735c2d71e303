import Foundation
import Logging

/// The engine's transport over the PostgreSQL client (`Server/`): one connection for pushes and
/// pulls, and a listener on its own connection for wake-ups.
struct PostgresTransport: SyncTransport {
    let connection: SyncServerConnection
    let address: SyncServerAddress
    let logger: Logger

    /// A factory connecting with `logger`.
    static func factory(logger: Logger) -> SyncTransportFactory {
        { credentials in
            let address = credentials.serverAddress
            let connection = try await SyncServerConnection.connect(
                to: address, space: credentials.spaceID, logger: logger)
            return PostgresTransport(connection: connection, address: address, logger: logger)
        }
    }

    func space() async throws -> SpaceState {
        let info = try await connection.space()
        return SpaceState(
            keyEpoch: info.keyEpoch, keyCheck: info.keyCheck, channel: info.channel, lastSequence: info.lastSequence)
    }

    func push(_ uploads: [PreparedUpload]) async throws -> [UploadOutcome] {
        let requests = uploads.map { PushRequest(row: ServerRow($0.row), baseVersion: $0.baseVersion) }
        return try await connection.push(requests).map { outcome throws(SyncError) in
            switch outcome {
            case .accepted: .accepted
            case .conflict(let current): .conflict(current: try PulledRow(current))
            }
        }
    }

    func pull(after cursor: Int64, limit: Int) async throws -> [PulledRow] {
        try await connection.pull(after: cursor, limit: limit).map { row throws(SyncError) in try PulledRow(row) }
    }

    func sealedKey(epoch: Int, device: UUID) async throws -> Data? {
        try await connection.sealedKey(epoch: epoch, device: device)
    }

    func wakeUps(channel: String) async throws -> AsyncStream<Void> {
        SyncServerListener(address: address, channel: channel, logger: logger).wakeUps()
    }

    func close() async { await connection.close() }
}

extension ServerRow {
    /// The server's form of a sealed row (its sequence is assigned by the server).
    init(_ row: SealedRow) {
        self.init(
            rowID: row.rowID.bytes, version: row.version, deviceID: row.deviceID, deleted: row.deleted,
            keyEpoch: row.keyEpoch, ciphertext: row.ciphertext)
    }
}

extension PulledRow {
    /// A row the server returned; `SyncError.tampered` for a row id that is not 32 bytes.
    init(_ row: ServerRow) throws(SyncError) {
        self.init(
            row: SealedRow(
                rowID: try RowID(bytes: row.rowID), version: row.version, deviceID: row.deviceID,
                deleted: row.deleted, keyEpoch: row.keyEpoch, ciphertext: row.ciphertext),
            sequence: row.sequence)
    }
}

extension SyncDeviceCredentials {
    /// Where and as whom the device logs in.
    public var serverAddress: SyncServerAddress {
        SyncServerAddress(
            host: host, port: port, database: database, username: username, password: password, tls: requiresTLS)
    }
}
