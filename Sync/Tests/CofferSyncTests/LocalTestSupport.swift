import Coffer
import Foundation
import Testing

@testable import CofferSync

/// A synced test object.
struct Note: Codable, Sendable, Equatable {
    var text: String
}

/// Synced test metadata.
struct Tag: Codable, Sendable, Equatable {
    var label: String
}

/// One device of a test: its own database and replica, exchanging sealed rows through a ``RowRelay``.
final class TestDevice {
    let database: Database
    let replica: SyncReplica
    let connection: Connection
    let deviceID: UUID
    let sealer: RowSealer

    static let collections: [SyncedCollection] = [
        .collection("notes", objects: Note.self, metadata: Tag.self),
        .collection("plain", objects: String.self),
    ]

    init(
        directory: URL, name: String, key: SyncKey, space: UUID, merge: SyncMergeHandler? = nil,
        wall: (@Sendable () -> UInt64)? = nil
    ) throws {
        var options = DatabaseOptions()
        options.key = .raw(Data(repeating: 0x42, count: 32))
        database = try Database(url: directory.appendingPathComponent("\(name).coffer"), options: options)
        database.registerCodable(Note.self, metadata: Tag.self, forCollection: "notes")
        database.registerCodable(String.self, forCollection: "plain", format: .binary)
        replica = try SyncReplica(database: database, collections: Self.collections, merge: merge)
        connection = try database.newConnection()
        sealer = RowSealer(syncKey: key, spaceID: space)
        deviceID = UUID()
    }

    /// The same database and replica with the identity of stored credentials.
    init(rebinding other: TestDevice, to credentials: SyncDeviceCredentials) throws {
        database = other.database
        replica = other.replica
        connection = other.connection
        deviceID = credentials.deviceID
        sealer = RowSealer(syncKey: credentials.syncKey, spaceID: credentials.spaceID)
    }

    /// Uploads everything queued, merging conflicts, until the queue is empty.
    func upload(to relay: RowRelay) throws -> [SyncError] {
        var rejected: [SyncError] = []
        for _ in 0..<50 {
            let batch = try replica.prepareUploads(sealer: sealer, deviceID: deviceID, limit: 7)
            if batch.isEmpty { return rejected }
            let outcomes = relay.push(batch)
            rejected += try replica.finish(batch, outcomes: outcomes, sealer: sealer).rejected
        }
        Issue.record("uploads did not settle")
        return rejected
    }

    /// Pulls everything after the cursor, in small batches.
    @discardableResult
    func pull(from relay: RowRelay) throws -> SyncApplyReport {
        var total = SyncApplyReport()
        while true {
            let rows = relay.pull(after: try replica.cursor(), limit: 5)
            if rows.isEmpty { return total }
            let report = try replica.apply(rows, sealer: sealer)
            total.applied += report.applied
            total.skipped += report.skipped
            total.rejected += report.rejected
        }
    }

    func note(_ key: String) throws -> Note? {
        try connection.read { try $0.object(forKey: key, inCollection: "notes", as: Note.self) }
    }

    func set(_ text: String?, _ key: String, tag: String? = nil) throws {
        try connection.readWrite { tx in
            if let text {
                try tx.setObject(Note(text: text), forKey: key, inCollection: "notes", withMetadata: tag.map(Tag.init))
            } else {
                try tx.removeObject(forKey: key, inCollection: "notes")
            }
        }
    }

    /// Every note, by key.
    func notes() throws -> [String: String] {
        try connection.read { tx in
            var result: [String: String] = [:]
            for key in try tx.allKeys(inCollection: "notes") {
                result[key] = try tx.object(forKey: key, inCollection: "notes", as: Note.self)?.text
            }
            return result
        }
    }
}

/// The model of the merge rule for random tests: the latest write of each key by hybrid
/// timestamp, tombstones included.
struct LatestWrites {
    private var latest: [String: (timestamp: HybridTimestamp, text: String?)] = [:]

    /// Writes `text` (nil deletes) under `key` in `device`'s notes, and keeps it if it is now the
    /// latest write of the key.
    mutating func write(_ text: String?, _ key: String, on device: TestDevice) throws {
        try device.set(text, key)
        if let state = try device.replica.rowState(collection: "notes", key: key),
            latest[key].map({ $0.timestamp < state.timestamp }) ?? true
        {
            latest[key] = (state.timestamp, text)
        }
    }

    /// The rows every device must hold: each key's latest write, without the deleted ones.
    var rows: [String: String] { latest.compactMapValues(\.text) }
}
