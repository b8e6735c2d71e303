import Coffer
import Foundation

/// What one remote apply did.
public struct SyncApplyReport: Sendable, Equatable {
    /// Rows written or deleted locally (or whose merge kept the local write).
    public var applied = 0
    /// Rows already held at that version, or of collections this device does not sync.
    public var skipped = 0
    /// Rows refused (tampered or rolled back): reported, never applied.
    public var rejected: [SyncError] = []

    /// An empty report.
    public init() {}
}

/// One row pulled from the server, with the sequence number it was stored under.
public struct PulledRow: Sendable, Hashable {
    /// The sealed row.
    public var row: SealedRow
    /// The server's sequence number for it.
    public var sequence: Int64

    /// Pairs a sealed row with its sequence number.
    public init(row: SealedRow, sequence: Int64) {
        self.row = row
        self.sequence = sequence
    }
}

extension SyncReplica {
    /// Applies rows pulled from the server in one local transaction marked remote, merging them
    /// with unsent local writes, and advances the cursor to `cursor` (or the highest sequence of
    /// `rows`) in the same transaction.
    ///
    /// A row that does not open (``SyncError/tampered(rowID:reason:)``) or is older than what the
    /// device holds (``SyncError/rollbackDetected(rowID:held:served:)``) is reported in the
    /// result and not applied; the cursor still moves past it.
    ///
    /// - Throws: `SyncError.keyEpochChanged` when a row is sealed under a later epoch than the
    ///   sealer's (the space was rotated since it was read: adopt the new key and pull again);
    ///   Coffer's `DatabaseError`, or what a merge handler threw. Nothing was applied then.
    public func apply(_ rows: [PulledRow], sealer: RowSealer, cursor: Int64? = nil) throws -> SyncApplyReport {
        if let newer = rows.map(\.row.keyEpoch).max(), newer > sealer.epoch {
            throw SyncError.keyEpochChanged(space: sealer.spaceID, expected: sealer.epoch, current: newer)
        }
        return try connection.readWrite { tx in
            try markRemote(tx)
            var report = SyncApplyReport()
            for pulled in rows { try applyOne(pulled.row, sealer: sealer, tx, &report) }
            let highest = max(cursor ?? 0, rows.map(\.sequence).max() ?? 0)
            if highest > (try SyncLocalStore.cursor(tx)) { try SyncLocalStore.setCursor(highest, tx) }
            try SyncLocalStore.setInteger(clock.latest, tx, "clock")
            return report
        }
    }

    /// Opens, checks and merges one row into `tx`.
    func applyOne(_ row: SealedRow, sealer: RowSealer, _ tx: ReadWriteTransaction, _ report: inout SyncApplyReport)
        throws
    {
        let record: RowRecord
        do {
            record = try sealer.open(row)
        } catch {
            report.rejected.append(error)
            return
        }
        guard let collection = collections[record.collection] else {
            report.skipped += 1
            return
        }
        let remoteValue: SyncValue?
        do {
            remoteValue = try record.object.map { try collection.decodeWire($0, record.metadata) }
        } catch {
            report.rejected.append(.undecodableRow(rowID: row.rowID.description))
            return
        }
        let held = try SyncLocalStore.rowState(tx, collection: record.collection, key: record.key)
        if let held, row.version < held.version {
            report.rejected.append(
                .rollbackDetected(rowID: row.rowID.description, held: held.version, served: row.version))
            return
        }
        if let held, row.version == held.version {
            report.skipped += 1
            return
        }
        clock.receive(record.timestamp)
        var state = SyncRowState(
            rowID: row.rowID.bytes, version: row.version, timestamp: record.timestamp, pending: false,
            deleted: record.isTombstone)
        if let held, held.pending, held.timestamp == record.timestamp {
            // This device's own write, stored by a push whose answer was lost: nothing to merge.
            state.deleted = held.deleted
        } else if let held, held.pending {
            switch try resolve(held: held, remote: record, remoteValue: remoteValue, collection: collection, tx) {
            case .keepLocal:
                state.timestamp = held.timestamp
                state.deleted = held.deleted
                state.pending = true
            case .keepRemote:
                try write(remoteValue, record, collection: collection, tx)
            case .write(let value):
                if let value {
                    try collection.writeValue(tx, record.key, value)
                } else {
                    try tx.removeObject(forKey: record.key, inCollection: record.collection)
                }
                state.timestamp = clock.now()
                state.deleted = value == nil
                state.pending = true
                try tx.cloudCore(Self.queueName).add(
                    CloudOperation(SyncUploadRequest(collection: record.collection, key: record.key)))
            }
        } else {
            try write(remoteValue, record, collection: collection, tx)
        }
        try SyncLocalStore.setRowState(state, tx, collection: record.collection, key: record.key)
        report.applied += 1
    }

    /// Runs the merge handler; the default rule compares timestamps only.
    private func resolve(
        held: SyncRowState, remote: RowRecord, remoteValue: SyncValue?, collection: SyncedCollection,
        _ tx: ReadWriteTransaction
    ) throws -> SyncResolution {
        guard let merge else { return remote.timestamp > held.timestamp ? .keepRemote : .keepLocal }
        let localValue = held.deleted ? nil : try collection.readValue(tx, remote.key)
        return try merge(
            SyncConflict(
                collection: remote.collection, key: remote.key, local: localValue, localTimestamp: held.timestamp,
                remote: remoteValue, remoteTimestamp: remote.timestamp))
    }

    /// Writes (or deletes) the server's value locally.
    private func write(
        _ value: SyncValue?, _ record: RowRecord, collection: SyncedCollection, _ tx: ReadWriteTransaction
    ) throws {
        if let value {
            try collection.writeValue(tx, record.key, value)
        } else {
            try tx.removeObject(forKey: record.key, inCollection: record.collection)
        }
    }
}
