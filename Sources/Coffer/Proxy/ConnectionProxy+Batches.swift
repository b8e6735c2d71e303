/// The write loop: one asynchronous read-write transaction per batch, one batch at a time.
extension ConnectionProxy {
    /// Queues a read-write transaction on the write connection; the caller has moved the phase to `.queued`.
    func startWrite() {
        // The closures hold the proxy strongly: a queued batch is written even if the caller lets go
        // of the proxy right after a change.
        writeConnection.asyncReadWrite(
            { tx in try self.writeBatch(tx) },
            completionQueue: completionQueue,
            completion: { error in self.finishBatch(error: error) })
    }

    /// Runs inside the batch's transaction: captures the pending rows and writes them.
    private func writeBatch(_ tx: ReadWriteTransaction) throws {
        let batch = state.withLock { $0.captureBatch() }
        guard !batch.rows.isEmpty else { return }
        for row in batch.rows {
            try write(row, in: tx)
        }
        tx.notificationCustomObject = ConnectionProxyCommit(proxyID: id, version: batch.version)
    }

    /// Writes one captured row the way YapDatabase's proxy does.
    private func write(_ row: CapturedRow, in tx: ReadWriteTransaction) throws {
        let key = row.key.key
        let collection = row.key.collection
        switch (row.object, row.metadata) {
        case (.removed?, _):
            try tx.removeObject(forKey: key, inCollection: collection)
        case (.value(let object)?, let metadata?):
            try tx.setObject(object, forKey: key, inCollection: collection, withMetadata: metadata.readValue)
        case (.value(let object)?, nil):
            // Only the object changed (replaceObject): the row's metadata stays.
            try tx.replaceObject(object, forKey: key, inCollection: collection)
        case (nil, let metadata?):
            try tx.replaceMetadata(metadata.readValue, forKey: key, inCollection: collection)
        case (nil, nil):
            break
        }
    }

    /// Runs on the completion queue after the batch's transaction committed or failed.
    private func finishBatch(error: (any Error)?) {
        let (waiters, result, requeue) = state.withLock { $0.finishBatch(error: error) }
        if let error {
            database.options.logger?.warning(
                "Coffer: a proxy batch failed; its changes stay pending",
                metadata: ["proxy": "\(id)", "error": "\(error)"])
        }
        if requeue { startWrite() }
        for waiter in waiters { waiter.resume(result) }
    }
}
