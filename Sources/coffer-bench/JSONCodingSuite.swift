import Foundation

/// The cost of Foundation's JSON coding alone (`JSONENC`, `JSONDEC`), so Codable figures can be judged against
/// the C baseline plus coding.
///
/// Encoding uses one `JSONEncoder` with `.sortedKeys` for all N records; decoding uses one `JSONDecoder` and
/// decodes each stored value separately, as a store does per row.
struct JSONCodingSuite: BenchmarkSuite {
    let implementation = ""
    let scope = SuiteScope.once
    let workloads = [WorkloadInfo("JSONENC"), WorkloadInfo("JSONDEC")]

    /// Encodes the W1 records, then decodes their stored bytes, checking both against the prepared records.
    /// - Throws: `BenchError` with code `.sanity` when coding fails or disagrees with the prepared bytes.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        let records = context.records
        var report = SuiteReport()
        if selected.contains("JSONENC") {
            let encoder = Records.canonicalEncoder()
            let encoded = try Stopwatch.measure {
                try records.users.reduce(0) { total, user in total + (try encoder.encode(user)).count }
            }
            guard encoded.value == records.values.totalBytes else {
                throw BenchError(
                    .sanity, "JSONENC produced \(encoded.value) bytes, expected \(records.values.totalBytes)")
            }
            report.results.append(figure("JSONENC", records.count, encoded.value, encoded.seconds))
        }
        if selected.contains("JSONDEC") {
            let decoder = JSONDecoder()
            let stored = records.values.dataArray()
            let decoded = try Stopwatch.measure {
                try stored.reduce(0) { total, data in total + (try decoder.decode(User.self, from: data)).age }
            }
            let expectedAges = records.users.reduce(0) { $0 + $1.age }
            guard decoded.value == expectedAges else {
                throw BenchError(.sanity, "JSONDEC age sum \(decoded.value), expected \(expectedAges)")
            }
            report.results.append(figure("JSONDEC", records.count, records.values.totalBytes, decoded.seconds))
        }
        return report
    }

    private func figure(_ id: String, _ count: Int, _ bytes: Int, _ seconds: Double) -> WorkloadResult {
        let megabytesPerSecond = seconds > 0 ? Double(bytes) / seconds / 1_000_000 : 0
        let microsecondsPerRecord = count > 0 ? seconds * 1_000_000 / Double(count) : 0
        return WorkloadResult(
            id: id, ops: count, seconds: seconds,
            extra: [
                (name: "bytes", value: String(bytes)),
                (name: "mb_per_s", value: String(format: "%.1f", megabytesPerSecond)),
                (name: "us_per_record", value: String(format: "%.2f", microsecondsPerRecord)),
            ])
    }
}
