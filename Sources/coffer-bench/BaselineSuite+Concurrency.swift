import Foundation

extension BaselineSuite {
    /// Write transactions per C writer call: `cb_w2_upsert` prepares its statements once per call, so batching
    /// keeps that cost out of the per-transaction figure while the writer still checks the stop flag often.
    static let writerBatch = 50

    /// W10 on the C API: one writer and 1, 2 and 4 readers, each on its own connection, for a fixed time.
    ///
    /// The writer upserts the W2 records in turn, one transaction each; each reader runs read transactions of
    /// `ConcurrentRun.readsPerTransaction` W3 keys. Connections are opened before the clock starts and checkpoint
    /// automatically whatever `--c-checkpoint` says, since nothing else would checkpoint the WAL during the run.
    /// With `fixedRate` (W10f) the writer commits one transaction per call at
    /// `ConcurrentRun.fixedCommitsPerSecond`.
    /// - Throws: `BenchError` when a connection or a transaction fails.
    func measureConcurrency(path: String, context: SuiteContext, fixedRate: Bool = false) throws -> [WorkloadResult] {
        let records = context.records
        let batches = Self.pairBatches(
            keys: records.updateKeys, values: records.updateValues, size: fixedRate ? 1 : Self.writerBatch)
        let chunks = Self.keyChunks(records.readKeys, size: ConcurrentRun.readsPerTransaction)
        let key = context.sqlcipherKey
        let configuration = context.configuration
        // The C side has no background checkpointer: its writer checkpoints inline, every 1,000 pages.
        let options = {
            var options = context.options
            options.cCheckpoint = .automatic
            return options
        }()
        let collection = Records.collection
        var results: [WorkloadResult] = []
        for readers in context.options.concurrencyReaders {
            let outcome = try ConcurrentRun.measure(
                readers: readers, duration: context.options.concurrencySeconds,
                makeWriter: {
                    let database = try BaselineDatabase(
                        path: path, key: key, configuration: configuration, options: options)
                    var next = 0
                    let step: ConcurrentRun.Step = {
                        let batch = batches[next % batches.count]
                        next += 1
                        try database.upsertEach(keys: batch.keys, values: batch.values, collection: collection)
                        return batch.keys.count
                    }
                    return fixedRate ? ConcurrentRun.paced(perSecond: ConcurrentRun.fixedCommitsPerSecond, step) : step
                },
                makeReader: { index in
                    let database = try BaselineDatabase(
                        path: path, key: key, configuration: configuration, options: options)
                    var next = ConcurrentRun.startChunk(reader: index, readers: readers, chunkCount: chunks.count)
                    return {
                        let chunk = chunks[next % chunks.count]
                        next += 1
                        let read = try database.readEach(keys: chunk, collection: collection)
                        guard read.found == chunk.count else {
                            throw BenchError(.checkMismatch, "C:W10 found \(read.found) of \(chunk.count) keys")
                        }
                        return read.found
                    }
                })
            results.append(outcome.result(readers: readers, workload: fixedRate ? "W10f" : "W10"))
        }
        return results
    }

    /// `keys`/`values` pairs in consecutive batches of at most `size`.
    static func pairBatches(keys: PackedStrings, values: PackedStrings, size: Int) -> [(
        keys: PackedStrings, values: PackedStrings
    )] {
        stride(from: 0, to: keys.count, by: size).map { start in
            var batchKeys = PackedStrings()
            var batchValues = PackedStrings()
            for index in start..<min(start + size, keys.count) {
                batchKeys.append(keys.item(at: index))
                batchValues.append(values.item(at: index))
            }
            return (batchKeys, batchValues)
        }
    }

    /// `keys` in consecutive chunks of at most `size`.
    static func keyChunks(_ keys: PackedStrings, size: Int) -> [PackedStrings] {
        stride(from: 0, to: keys.count, by: size).map { start in
            var chunk = PackedStrings()
            for index in start..<min(start + size, keys.count) { chunk.append(keys.item(at: index)) }
            return chunk
        }
    }
}
