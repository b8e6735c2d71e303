import Coffer
import Crypto
import Foundation

/// W7's breakdown of the AES-GCM cost on the same 250-byte JSON records: the stage inside a chain
/// over raw bytes (the cipher plus subkey lookup, nonce, associated data and header framing)
/// against the stage-less raw-bytes chain, and swift-crypto's `seal`/`open` alone with a fixed key
/// — the backend the stage uses on Apple platforms, and what it would cost on Linux, where the
/// stage runs on libcrypto instead. These lines say where an "+AES-GCM" row's microseconds go.
extension ChainSuite {
    /// Measures the breakdown on `blobs` (the codec-only chain's output: the records' JSON).
    static func aesBreakdown(
        _ blobs: [Data], keys: [String], collection: String, keyring: Keyring
    ) throws -> [WorkloadResult] {
        let plain = SerializerChain(codec: .data)
        let sealed = SerializerChain(codec: .data, stages: [.aesGCM(keyring)])
        var results: [WorkloadResult] = []
        func record(_ id: String, _ seconds: Double) {
            let perRecord = blobs.isEmpty ? 0 : seconds * 1e6 / Double(blobs.count)
            results.append(
                WorkloadResult(
                    id: id, ops: blobs.count, seconds: seconds,
                    extra: [(name: "us_per_record", value: String(format: "%.2f", perRecord))]))
        }
        let plainEncoded = try Stopwatch.measure {
            try blobs.indices.map { try plain.serialize(blobs[$0], collection: collection, key: keys[$0]) }
        }
        record("W7-raw-enc", plainEncoded.seconds)
        let stageEncoded = try Stopwatch.measure {
            try blobs.indices.map { try sealed.serialize(blobs[$0], collection: collection, key: keys[$0]) }
        }
        record("W7-raw+aes-gcm-enc", stageEncoded.seconds)
        let stageDecoded = try Stopwatch.measure {
            try stageEncoded.value.indices.reduce(0) { total, index in
                let object = try sealed.deserialize(stageEncoded.value[index], collection: collection, key: keys[index])
                return total + ((object as? Data)?.count ?? 0)
            }
        }
        record("W7-raw+aes-gcm-dec", stageDecoded.seconds)

        // The cipher alone: one fixed key and nonce, associated data of the size Coffer binds.
        let key = SymmetricKey(data: Data(repeating: 0x42, count: 32))
        let nonce = try AES.GCM.Nonce(data: Data(repeating: 7, count: 12))
        let associatedData = Data(repeating: 1, count: 40)
        let boxes = try Stopwatch.measure {
            try blobs.map { try AES.GCM.seal($0, using: key, nonce: nonce, authenticating: associatedData) }
        }
        record("W7-swift-crypto-seal", boxes.seconds)
        let opened = try Stopwatch.measure {
            try boxes.value.reduce(0) { $0 + (try AES.GCM.open($1, using: key, authenticating: associatedData)).count }
        }
        record("W7-swift-crypto-open", opened.seconds)
        guard stageDecoded.value == opened.value else {
            throw BenchError(.checkMismatch, "W7 AES breakdown: decrypted byte counts disagree")
        }
        return results
    }
}
