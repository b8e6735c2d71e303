import Coffer
import Foundation

/// The binary codec's own cost beside Foundation's coders.
///
/// `BINENC` and `BINDEC` are `JSONENC` and `JSONDEC` with ``BinaryEncoder``/``BinaryDecoder``: the N benchmark
/// records, one encoder for all, each stored value decoded separately. `CODECS` codes three shapes with JSON
/// (`JSONEncoder` with `.sortedKeys`), binary property lists and the binary codec: the benchmark record, a 50-field
/// struct and an array of 1,000 small structs; each figure is the median of five timed passes, and prints the
/// encoded size and its speed against JSON's figure of the same pass.
struct CodecSuite: BenchmarkSuite {
    /// Timed passes per `CODECS` figure; the median is reported.
    static let repetitions = 5

    let implementation = ""
    let scope = SuiteScope.once
    let workloads = [WorkloadInfo("BINENC"), WorkloadInfo("BINDEC"), WorkloadInfo("CODECS")]

    /// Runs the selected codec workloads on the prepared records.
    /// - Throws: `BenchError` with code `.sanity` when a codec disagrees with the records.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        let users = context.records.users
        var report = SuiteReport()
        let encoder = BinaryEncoder()
        let stored = try users.map { try encoder.encode($0) }
        let storedBytes = stored.reduce(0) { $0 + $1.count }
        if selected.contains("BINENC") {
            let encoded = try Stopwatch.measure {
                try users.reduce(0) { total, user in total + (try encoder.encode(user)).count }
            }
            report.results.append(Self.figure("BINENC", users.count, encoded.value, encoded.seconds))
        }
        if selected.contains("BINDEC") {
            let decoder = BinaryDecoder()
            let decoded = try Stopwatch.measure {
                try stored.reduce(0) { total, data in total + (try decoder.decode(User.self, from: data)).age }
            }
            let expected = users.reduce(0) { $0 + $1.age }
            guard decoded.value == expected else {
                throw BenchError(.sanity, "BINDEC age sum \(decoded.value), expected \(expected)")
            }
            report.results.append(Self.figure("BINDEC", users.count, storedBytes, decoded.seconds))
        }
        if selected.contains("CODECS") {
            let count = max(1, min(users.count, 20_000))
            report.results += try Self.compare("record", Array(users.prefix(count)))
            report.results += try Self.compare("wide50", (0..<max(1, count / 4)).map { Wide50(index: $0) })
            let arrays = (0..<max(1, count / 1000)).map { base in (0..<1000).map { SmallRecord(index: base + $0) } }
            report.results += try Self.compare("array1000", arrays)
        }
        return report
    }

    /// Encodes and decodes `values` with each coder; lines `CODEC-<shape>-<coder>-<enc|dec>`.
    private static func compare<T: Codable & Equatable>(_ shape: String, _ values: [T]) throws -> [WorkloadResult] {
        let json = JSONEncoder()
        json.outputFormatting = [.sortedKeys]
        let plist = PropertyListEncoder()
        plist.outputFormat = .binary
        let binary = BinaryEncoder()
        let jsonDecoder = JSONDecoder()
        let plistDecoder = PropertyListDecoder()
        let binaryDecoder = BinaryDecoder()
        let coders: [(name: String, encode: (T) throws -> Data, decode: (Data) throws -> T)] = [
            ("json", { try json.encode($0) }, { try jsonDecoder.decode(T.self, from: $0) }),
            ("plist", { try plist.encode($0) }, { try plistDecoder.decode(T.self, from: $0) }),
            ("binary", { try binary.encode($0) }, { try binaryDecoder.decode(T.self, from: $0) }),
        ]
        var results: [WorkloadResult] = []
        var jsonSeconds = (encode: 0.0, decode: 0.0)
        for coder in coders {
            let stored = try values.map(coder.encode)
            guard try stored.map(coder.decode) == values else {
                throw BenchError(.sanity, "CODEC-\(shape)-\(coder.name) does not round-trip")
            }
            let bytes = stored.reduce(0) { $0 + $1.count }
            let encode = try median {
                try values.reduce(0) { total, value in total + (try coder.encode(value)).count }
            }
            let decode = try median {
                try stored.reduce(0) { total, data in total + (try coder.decode(data) == values[0] ? 1 : 0) }
            }
            if coder.name == "json" { jsonSeconds = (encode, decode) }
            for (direction, seconds, reference) in [
                ("enc", encode, jsonSeconds.encode), ("dec", decode, jsonSeconds.decode),
            ] {
                var figure = Self.figure("CODEC-\(shape)-\(coder.name)-\(direction)", values.count, bytes, seconds)
                figure.extra.append((name: "bytes_per_value", value: String(bytes / max(values.count, 1))))
                figure.extra.append((name: "x_vs_json", value: String(format: "%.2f", reference / max(seconds, 1e-12))))
                results.append(figure)
            }
        }
        return results
    }

    /// The median time of ``repetitions`` passes of `body`.
    private static func median(_ body: () throws -> Int) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<repetitions { samples.append(try Stopwatch.measure(body).seconds) }
        return Stopwatch.median(samples)
    }

    private static func figure(_ id: String, _ count: Int, _ bytes: Int, _ seconds: Double) -> WorkloadResult {
        let microseconds = count > 0 ? seconds * 1_000_000 / Double(count) : 0
        return WorkloadResult(
            id: id, ops: count, seconds: seconds,
            extra: [
                (name: "bytes", value: String(bytes)),
                (name: "us_per_op", value: String(format: "%.3f", microseconds)),
            ])
    }
}
