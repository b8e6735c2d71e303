import Coffer
import Foundation

extension CofferRawSuite {
    /// W10f on Coffer's engine: one writer committing at `ConcurrentRun.fixedCommitsPerSecond`, as C's does in
    /// its W10f, and 1, 2 and 4 readers, each on its own connection, for a fixed time.
    ///
    /// The writer upserts the pre-encoded W2 bytes in turn (one `readWrite` each); each reader runs `read`
    /// transactions of `ConcurrentRun.readsPerTransaction` W3 keys read as `Data` with the age parsed as C parses
    /// it, so both sides do the same work per read and per commit. Connections have their caches off and are
    /// created before the clock starts.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a read misses a key.
    func measureFixedRateConcurrency(_ database: Database, context: SuiteContext) throws -> [WorkloadResult] {
        let records = context.records
        let keys = records.updateIndexes.map { User.key(index: $0) }
        let values = records.updateValues.dataArray()
        let chunks = ConcurrentRun.readChunks(records.readKeyStrings)
        let collection = Records.collection
        var results: [WorkloadResult] = []
        for readers in context.options.concurrencyReaders {
            let outcome = try ConcurrentRun.measure(
                readers: readers, duration: context.options.concurrencySeconds,
                makeWriter: {
                    let connection = try database.newConnection(config: CofferStore.uncached)
                    var next = 0
                    return ConcurrentRun.paced(perSecond: ConcurrentRun.fixedCommitsPerSecond) {
                        let index = next % keys.count
                        next += 1
                        try connection.readWrite { tx in
                            try tx.setObject(values[index], forKey: keys[index], inCollection: collection)
                        }
                        return 1
                    }
                },
                makeReader: { index in
                    let connection = try database.newConnection(config: CofferStore.uncached)
                    var next = ConcurrentRun.startChunk(reader: index, readers: readers, chunkCount: chunks.count)
                    return {
                        let chunk = chunks[next % chunks.count]
                        next += 1
                        let read = try Self.pointReads(connection, chunk, handles: false)
                        guard read.found == chunk.count else {
                            throw BenchError(
                                .checkMismatch, "CofferRaw:W10f found \(read.found) of \(chunk.count) keys")
                        }
                        return read.found
                    }
                })
            results.append(outcome.result(readers: readers, workload: "W10f"))
        }
        return results
    }
}
