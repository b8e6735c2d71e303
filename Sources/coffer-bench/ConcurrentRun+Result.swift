import Foundation

extension ConcurrentRun {
    /// Point reads per reader transaction in W10 (keys taken in turn from the W3 sequence).
    static let readsPerTransaction = 1000

    /// `keys` in consecutive slices of `readsPerTransaction` (the last may be shorter): one reader
    /// transaction's reads each.
    static func readChunks(_ keys: [String]) -> [[String]] {
        stride(from: 0, to: keys.count, by: readsPerTransaction).map {
            Array(keys[$0..<min($0 + readsPerTransaction, keys.count)])
        }
    }

    /// The reader's slices of the W3 key sequence, `readsPerTransaction` keys each, and where reader `index` of
    /// `readers` starts in them (readers start spread out, so they do not read the same pages in lockstep).
    static func startChunk(reader index: Int, readers: Int, chunkCount: Int) -> Int {
        chunkCount == 0 ? 0 : (index * chunkCount / max(readers, 1)) % chunkCount
    }
}

extension ConcurrentRun.Outcome {
    /// CPU seconds the writer thread used.
    var writerCPU: Double { cpuPerThread.first ?? 0 }

    /// CPU seconds the reader threads used together.
    var readersCPU: Double { cpuPerThread.dropFirst().reduce(0, +) }

    /// The figure line of one W10 (or, with `workload` "W10f", one fixed-rate) measurement: ops are reads, the
    /// time is the measured window; the CPU figures show how the two cores were shared (`cpu_other_s`: threads
    /// that are neither the writer nor a reader, such as background checkpoints and notification delivery).
    func result(readers: Int, workload: String = "W10") -> WorkloadResult {
        let id = "\(workload)-r\(readers)"
        let perReader = readsPerReader.map { seconds > 0 ? Double($0) / seconds : 0 }
        func rate(_ value: Double) -> String { String(format: "%.0f", value) }
        return WorkloadResult(
            id: id, ops: reads, seconds: seconds, baselineID: id,
            extra: [
                (name: "readers", value: String(readers)),
                (name: "reads_per_s_per_reader", value: rate(perReader.reduce(0, +) / Double(max(readers, 1)))),
                (name: "reader_min", value: rate(perReader.min() ?? 0)),
                (name: "reader_max", value: rate(perReader.max() ?? 0)),
                (name: "writes", value: String(writes)),
                (name: "writes_per_s", value: rate(seconds > 0 ? Double(writes) / seconds : 0)),
                (name: "cpu_writer_s", value: String(format: "%.2f", writerCPU)),
                (name: "cpu_readers_s", value: String(format: "%.2f", readersCPU)),
                (name: "cpu_other_s", value: String(format: "%.2f", max(0, processCPU - writerCPU - readersCPU))),
                (name: "reads_per_reader_cpu_s", value: rate(readersCPU > 0 ? Double(reads) / readersCPU : 0)),
            ])
    }
}
