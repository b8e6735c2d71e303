import Foundation

/// The runtime checks that the records, the encoder and the key sequence are exactly those of BENCHMARKS.md.
///
/// They always check the canonical N = 100,000 figures, whatever N the run uses, because a wrong record or key
/// generator makes every figure of the run meaningless.
enum SanityCheck {
    /// The canonical encoding of record 123 (rev 0).
    static let record123 =
        #"{"age":21,"bio":"Bio of user-000123: likes encrypted storage, long walks on the beach and deterministic "#
        + #"benchmarks.","email":"person.000123@example.com","id":"user-000123","name":"Person Number 000123","#
        + #""score":123.25,"tags":["tag3","group23","tier3"]}"#
    /// The canonical record count.
    static let canonicalCount = 100_000
    /// The total encoded size of the canonical W1 records.
    static let canonicalTotalBytes = 25_079_000
    /// The smallest and largest encoded record.
    static let canonicalSizes = 248...251
    /// The first W3 keys of SplitMix64 seed 42.
    static let canonicalFirstKeys = ["user-075413", "user-092291", "user-063858"]
    /// The number of distinct keys among the canonical 100,000 W3 reads.
    static let canonicalDistinctKeys = 63_168

    /// Runs every check and returns the `#` lines describing them.
    /// - Throws: `BenchError` with code `.sanity` naming the first check that failed.
    /// - Complexity: encodes 100,000 records when `records` has another count (about a second).
    static func verify(_ records: Records) throws -> [String] {
        var lines: [String] = []
        let encoder = Records.canonicalEncoder()
        let encoded = try encoder.encode(User(index: 123, rev: 0))
        guard encoded == Data(record123.utf8), encoded.count == 251 else {
            throw BenchError(.sanity, "record 123 encodes to \(encoded.count) bytes that differ from BENCHMARKS.md")
        }
        lines.append("sanity record123 bytes=\(encoded.count) ok")

        let sizes = try canonicalSizes(records, encoder)
        let total = sizes.reduce(0, +)
        let smallest = sizes.min() ?? 0
        let largest = sizes.max() ?? 0
        guard total == canonicalTotalBytes, canonicalSizes.contains(smallest), canonicalSizes.contains(largest) else {
            throw BenchError(
                .sanity,
                "the 100,000 records encode to \(total) bytes (\(smallest)…\(largest) each), "
                    + "expected \(canonicalTotalBytes) (248…251)")
        }
        let mean = String(format: "%.2f", Double(total) / Double(sizes.count))
        lines.append("sanity w1_total_bytes=\(total) min=\(smallest) max=\(largest) mean=\(mean) ok")

        let reads = SplitMix64.readIndexes(count: canonicalCount, recordCount: canonicalCount)
        let firstKeys = reads.prefix(3).map { User.key(index: $0) }
        let distinct = Set(reads).count
        guard firstKeys == canonicalFirstKeys, distinct == canonicalDistinctKeys else {
            throw BenchError(
                .sanity,
                "SplitMix64 keys start \(firstKeys.joined(separator: ",")) with \(distinct) distinct, "
                    + "expected \(canonicalFirstKeys.joined(separator: ",")) with \(canonicalDistinctKeys)")
        }
        lines.append("sanity w3_keys first=\(firstKeys.joined(separator: ",")) distinct=\(distinct) ok")
        lines.append("sanity ok")
        return lines
    }

    private static func canonicalSizes(_ records: Records, _ encoder: JSONEncoder) throws -> [Int] {
        if records.count == canonicalCount {
            return (0..<records.count).map { records.values.item(at: $0).count }
        }
        return try (0..<canonicalCount).map { try encoder.encode(User(index: $0, rev: 0)).count }
    }
}
