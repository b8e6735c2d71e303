import Coffer
import Crypto
import Foundation

/// W7: serializer-chain throughput on the W1 records — every record serialized, then every stored blob
/// deserialized back into a `User` — for each chain variant.
///
/// `ChainSuite+Breakdown.swift` adds lines that split the AES-GCM cost into the cipher and the stage's framing.
struct ChainSuite: BenchmarkSuite {
    /// One chain W7 measures, under the name its figure lines carry (`W7-<name>-enc`, `W7-<name>-dec`).
    struct Variant {
        /// The row name: `codec`, `zlib`, `aes`, `zlib+aes`.
        let name: String
        /// The chain.
        let chain: SerializerChain
    }

    let implementation = "Coffer"
    let scope = SuiteScope.once
    let workloads = [WorkloadInfo("W7")]

    /// The chains to measure, in report order.
    static func variants() -> [Variant] {
        let keyring = benchmarkKeyring()
        return [
            Variant(name: "codec", chain: SerializerChain(codec: .codable(User.self))),
            Variant(name: "zlib", chain: SerializerChain(codec: .codable(User.self), stages: [.zlib(threshold: 64)])),
            Variant(name: "aes-gcm", chain: SerializerChain(codec: .codable(User.self), stages: [.aesGCM(keyring)])),
            Variant(
                name: "zlib+aes-gcm",
                chain: SerializerChain(codec: .codable(User.self), stages: [.zlib(threshold: 64), .aesGCM(keyring)])),
        ]
    }

    /// A keyring with one fixed key: the figures measure the cipher, not key handling.
    static func benchmarkKeyring() -> Keyring {
        let keyring = Keyring()
        try? keyring.addKey(SymmetricKey(data: Data(repeating: 0x42, count: 32)), id: 1)
        try? keyring.setCurrent(1)
        return keyring
    }

    /// Serializes and deserializes the W1 records with each variant.
    /// - Throws: `BenchError` with code `.checkMismatch` when a chain fails or does not give the records back.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        guard selected.contains("W7") else { return report }
        let records = context.records
        let users = records.users
        let plainBytes = records.values.totalBytes
        let collection = Records.collection
        let expectedAges = users.reduce(0) { $0 + $1.age }
        report.notes = [
            (key: "w7_variants", value: Self.variants().map(\.name).joined(separator: ",")),
            (key: "w7_zlib", value: "threshold=64-bytes(so-the-250-byte-records-are-compressed)"),
            (key: "w7_mb_per_s", value: "JSON-bytes-per-second(\(plainBytes)-bytes)"),
        ]
        var jsonBlobs: [Data] = []
        for variant in Self.variants() {
            let chain = variant.chain
            let encoded = try Stopwatch.measure {
                try users.map { try chain.serialize($0, collection: collection, key: $0.id) }
            }
            let storedBytes = encoded.value.reduce(0) { $0 + $1.count }
            let blobs = encoded.value
            if variant.name == "codec" { jsonBlobs = blobs }
            let decoded = try Stopwatch.measure {
                try blobs.indices.reduce(0) { total, index in
                    let object = try chain.deserialize(blobs[index], collection: collection, key: users[index].id)
                    guard let user = object as? User else {
                        throw BenchError(.checkMismatch, "W7 \(variant.name) decoded a \(type(of: object))")
                    }
                    return total + user.age
                }
            }
            guard decoded.value == expectedAges else {
                throw BenchError(
                    .checkMismatch, "W7 \(variant.name) age sum \(decoded.value), expected \(expectedAges)")
            }
            let reference = (encode: context.earlier["JSONENC"], decode: context.earlier["JSONDEC"])
            report.results.append(
                figure(
                    "W7-\(variant.name)-enc", users.count, plainBytes, storedBytes, encoded.seconds, reference.encode))
            report.results.append(
                figure(
                    "W7-\(variant.name)-dec", users.count, plainBytes, storedBytes, decoded.seconds, reference.decode))
        }
        report.results += try Self.aesBreakdown(
            jsonBlobs, keys: users.map(\.id), collection: collection, keyring: Self.benchmarkKeyring())
        return report
    }

    private func figure(
        _ id: String, _ count: Int, _ plainBytes: Int, _ storedBytes: Int, _ seconds: Double,
        _ reference: WorkloadResult?
    ) -> WorkloadResult {
        var extra: [(name: String, value: String)] = [
            (name: "stored_bytes", value: String(storedBytes)),
            (name: "mb_per_s", value: String(format: "%.1f", seconds > 0 ? Double(plainBytes) / seconds / 1e6 : 0)),
            (name: "us_per_record", value: String(format: "%.2f", count > 0 ? seconds * 1e6 / Double(count) : 0)),
        ]
        if let reference, reference.seconds > 0 {
            extra.append((name: "vs_plain_json", value: String(format: "%.2f", seconds / reference.seconds)))
        }
        return WorkloadResult(id: id, ops: count, seconds: seconds, extra: extra)
    }
}
