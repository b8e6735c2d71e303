import Coffer
public import Foundation

/// One row ready to push: sealed as the next version of the one it was based on.
public struct PreparedUpload: Sendable, Hashable {
    /// The row's collection.
    public let collection: String
    /// The row's key.
    public let key: String
    /// The sealed row, at version `baseVersion + 1`.
    public let row: SealedRow
    /// The server version the write is based on (0 = new).
    public let baseVersion: Int64
    /// The local write's timestamp: if the row was written again meanwhile, it stays pending.
    let timestamp: HybridTimestamp
    /// The queued operations this upload settles.
    let operations: [UUID]
}

/// The uploads of one round, and the queued operations that need no upload (the row was already
/// sent, or a remote write replaced it).
public struct UploadBatch: Sendable {
    /// The rows to push, in queue order.
    public var uploads: [PreparedUpload]
    /// Operations to complete without pushing.
    let settled: [UUID]
    /// Whether the round found nothing queued.
    public var isEmpty: Bool { uploads.isEmpty && settled.isEmpty }

    /// The batch cut, in order, into batches of at most `size` uploads and, past their first
    /// upload, at most `bytes` bytes of ciphertext; the operations that need no upload go with
    /// the first.
    func chunked(_ size: Int, bytes: Int = .max) -> [UploadBatch] {
        let runs = uploads.runs(count: size, bytes: bytes) { $0.row.ciphertext.count }
        guard !runs.isEmpty else { return [self] }
        return runs.enumerated().map { index, run in
            UploadBatch(uploads: Array(run), settled: index == 0 ? settled : [])
        }
    }
}

/// The server's answer to one upload.
public enum UploadOutcome: Sendable {
    /// Stored as the upload's version.
    case accepted
    /// Not stored: the server holds another version, returned here to merge with.
    case conflict(current: PulledRow)
}

extension SyncReplica {
    /// Reads up to `limit` distinct queued rows and seals their current values as the next
    /// version of the one each is based on, with this device's id as uploader.
    ///
    /// It stops early once the sealed rows reach `byteLimit` bytes (it seals at least one), so
    /// large values are never all held at once; the rows left out stay queued for the next call.
    ///
    /// - Throws: Coffer's `DatabaseError`, or `SyncError.misuse` if sealing fails.
    public func prepareUploads(
        sealer: RowSealer, deviceID: UUID, limit: Int = 500, byteLimit: Int = .max
    ) throws -> UploadBatch {
        try connection.read { tx in
            let operations = try tx.cloudCore(Self.queueName).operations(inPipeline: CloudCore.defaultPipelineName)
            var order: [CollectionKey] = []
            var byRow: [CollectionKey: [UUID]] = [:]
            var settled: [UUID] = []
            for operation in operations {
                guard let request = operation.payload(as: SyncUploadRequest.self) else { continue }
                let row = CollectionKey(collection: request.collection, key: request.key)
                if byRow[row] == nil {
                    guard order.count < limit else { continue }
                    order.append(row)
                }
                byRow[row, default: []].append(operation.uuid)
            }
            var uploads: [PreparedUpload] = []
            var sealedBytes = 0
            for row in order where sealedBytes < byteLimit {
                let ids = byRow[row] ?? []
                guard let collection = collections[row.collection],
                    let state = try SyncLocalStore.rowState(tx, collection: row.collection, key: row.key), state.pending
                else {
                    settled += ids
                    continue
                }
                let wire = state.deleted ? nil : try collection.readWire(tx, row.key)
                let record = RowRecord(
                    collection: row.collection, key: row.key, object: wire?.object, metadata: wire?.metadata,
                    timestamp: state.timestamp)
                let sealed = try sealer.seal(record, version: state.version + 1, deviceID: deviceID)
                sealedBytes += sealed.ciphertext.count
                uploads.append(
                    PreparedUpload(
                        collection: row.collection, key: row.key, row: sealed, baseVersion: state.version,
                        timestamp: state.timestamp, operations: ids))
            }
            return UploadBatch(uploads: uploads, settled: settled)
        }
    }

    /// Settles a round of uploads in one local transaction: an accepted row is no longer pending
    /// (unless written again since) and its operations complete; a conflict merges the server's
    /// row as a pull would, and its operations stay queued for the next round.
    ///
    /// - Returns: What merging the conflicting rows did.
    /// - Throws: Coffer's `DatabaseError`, or what a merge handler threw.
    public func finish(_ batch: UploadBatch, outcomes: [UploadOutcome], sealer: RowSealer) throws -> SyncApplyReport {
        try connection.readWrite { tx in
            try markRemote(tx)
            let queue = try tx.cloudCore(Self.queueName)
            var report = SyncApplyReport()
            var complete = batch.settled
            for (upload, outcome) in zip(batch.uploads, outcomes) {
                switch outcome {
                case .accepted:
                    complete += upload.operations
                    guard var state = try SyncLocalStore.rowState(tx, collection: upload.collection, key: upload.key)
                    else { continue }
                    if state.timestamp == upload.timestamp { state.pending = false }
                    state.version = max(state.version, upload.row.version)
                    state.rowID = upload.row.rowID.bytes
                    try SyncLocalStore.setRowState(state, tx, collection: upload.collection, key: upload.key)
                case .conflict(let current):
                    try applyOne(current.row, sealer: sealer, tx, &report)
                }
            }
            for uuid in complete where try queue.operation(uuid) != nil { try queue.complete(uuid) }
            try SyncLocalStore.setInteger(clock.latest, tx, "clock")
            return report
        }
    }
}
