import Foundation

/// Reading the queue table.
extension CloudCoreTransaction {
    /// One row of the queue table.
    struct StoredRow {
        var pipeline: String
        var graph: UInt64
        var type: String
        var blob: Data
    }

    func storedRow(_ uuid: UUID) throws -> StoredRow? {
        var found: StoredRow?
        try tables.query(sql.selectOperation, [.blob(uuid.storedBytes)]) { row, stop in
            found = StoredRow(
                pipeline: row.text(at: 0), graph: UInt64(bitPattern: row.int64(at: 1)), type: row.text(at: 2),
                blob: row.data(at: 3) ?? Data())
            stop = true
        }
        return found
    }

    /// Calls `body` with every queued row (of `pipeline`, or all) in commit order, then the order added.
    func forEachRow(pipeline: String?, _ body: (UUID, StoredRow) throws -> Void) throws {
        let query =
            pipeline.map { ExtensionQuery(sql.selectPipeline, arguments: [.text($0)]) } ?? ExtensionQuery(sql.selectAll)
        var rows: [(UUID, StoredRow)] = []
        try tables.query(query) { row, _ in
            guard let uuid = UUID(storedBytes: row.data(at: 0) ?? Data()) else { return }
            rows.append(
                (
                    uuid,
                    StoredRow(
                        pipeline: row.text(at: 1), graph: UInt64(bitPattern: row.int64(at: 2)), type: row.text(at: 3),
                        blob: row.data(at: 4) ?? Data())
                ))
        }
        // Collected first: `body` may change the queue.
        for (uuid, row) in rows { try body(uuid, row) }
    }

    func decode(_ row: StoredRow, uuid: UUID) throws(CloudCoreError) -> CloudOperation {
        var operation = try state.cloudCore.coder.decode(
            row.blob, type: row.type, uuid: uuid, pipeline: row.pipeline, graphID: row.graph,
            registeredName: registeredName)
        if runtime.pipelines[row.pipeline]?.status(of: uuid) == .active { operation.status = .active }
        return operation
    }

    /// The queued operation `uuid`, which must exist.
    func requireOperation(_ uuid: UUID) throws -> (StoredRow, CloudOperation) {
        guard let row = try storedRow(uuid) else {
            throw CloudCoreError(
                .operationNotFound, "cloud core \"\(registeredName)\": no queued operation \(uuid)", operation: uuid)
        }
        return (row, try decode(row, uuid: uuid))
    }

    /// The graph ids of `pipeline` in this transaction's view, in commit order.
    func graphIDs(inPipeline pipeline: String) throws -> [UInt64] {
        var ids: [UInt64] = []
        try tables.query(sql.selectGraphs, [.text(pipeline)]) { row, _ in
            ids.append(UInt64(bitPattern: row.int64(at: 0)))
        }
        return ids
    }
}
