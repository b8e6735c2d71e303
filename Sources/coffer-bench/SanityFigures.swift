/// The cross-implementation checks of BENCHMARKS.md: what one implementation reports, or what all must report.
///
/// A `nil` field was not measured (its workload was not selected) and is not compared.
struct SanityFigures: Codable, Equatable, Sendable {
    /// The sum of `age` over the W3 reads.
    var w3Checksum: Int?
    /// The number of records W4 enumerated.
    var w4Count: Int?
    /// The sum of `age` over the W4 enumeration.
    var w4Checksum: Int?
    /// FNV-1a 64 (16 hex digits) over the stored values in key order, taken after W5.
    var contentFNV1a64: String?
    /// The number of records the content hash covered.
    var contentCount: Int?

    /// Creates figures with the given fields measured.
    init(
        w3Checksum: Int? = nil, w4Count: Int? = nil, w4Checksum: Int? = nil, contentFNV1a64: String? = nil,
        contentCount: Int? = nil
    ) {
        self.w3Checksum = w3Checksum
        self.w4Count = w4Count
        self.w4Checksum = w4Checksum
        self.contentFNV1a64 = contentFNV1a64
        self.contentCount = contentCount
    }

    /// Describes every measured field that differs from `expected`, one text per mismatch.
    func mismatches(against expected: SanityFigures) -> [String] {
        var found: [String] = []
        func compare<T: Equatable>(_ name: String, _ actual: T?, _ wanted: T?) {
            if let actual, let wanted, actual != wanted { found.append("\(name)=\(actual) expected \(wanted)") }
        }
        compare("W3 checksum", w3Checksum, expected.w3Checksum)
        compare("W4 count", w4Count, expected.w4Count)
        compare("W4 checksum", w4Checksum, expected.w4Checksum)
        compare("content fnv1a64", contentFNV1a64, expected.contentFNV1a64)
        compare("content count", contentCount, expected.contentCount)
        return found
    }
}
