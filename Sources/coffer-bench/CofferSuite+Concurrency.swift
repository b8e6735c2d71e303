import Coffer
import Foundation

extension CofferSuite {
    /// W10 on Coffer: one writer and 1, 2 and 4 readers, each on its own connection, for a fixed time.
    ///
    /// The writer upserts the W2 records in turn (one `readWrite` each, the same bytes as W2); each reader runs
    /// `read` transactions of `ConcurrentRun.readsPerTransaction` W3 keys, decoding every `User`. Connections have
    /// their caches off and are created before the clock starts.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a read misses a key.
    func measureConcurrency(_ database: Database, context: SuiteContext) throws -> [WorkloadResult] {
        let records = context.records
        let updates = records.updates
        let chunks = ConcurrentRun.readChunks(records.readKeyStrings)
        let collection = Records.collection
        var results: [WorkloadResult] = []
        for readers in context.options.concurrencyReaders {
            let outcome = try ConcurrentRun.measure(
                readers: readers, duration: context.options.concurrencySeconds,
                makeWriter: {
                    let connection = try database.newConnection(config: CofferStore.uncached)
                    var next = 0
                    return {
                        let user = updates[next % updates.count]
                        next += 1
                        try connection.readWrite { tx in
                            try tx.setObject(user, forKey: user.id, inCollection: collection)
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
                        let read = try Self.pointReads(connection, chunk)
                        guard read.found == chunk.count else {
                            throw BenchError(.checkMismatch, "Coffer:W10 found \(read.found) of \(chunk.count) keys")
                        }
                        return read.found
                    }
                })
            results.append(outcome.result(readers: readers))
        }
        return results
    }
}
