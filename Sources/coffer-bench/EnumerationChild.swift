import Coffer
import Foundation

/// W9's memory figure: W4 over the scaled database in a fresh `coffer-bench` process, whose peak RSS then holds
/// only the store, its page cache and the runtime — not the million prepared records of the parent.
///
/// The parent runs its own executable with the hidden `--child-enumerate` option; the child opens the file with the
/// same settings and key kind, enumerates and decodes every record in one read transaction, and prints one line.
enum EnumerationChild {
    /// Which store the child enumerates with.
    enum Implementation: String, Sendable {
        /// The C baseline (`cb_w4_enumerate`: key and value read, age parsed).
        case c
        /// Coffer with Codable `User` rows, caches off.
        case coffer
    }

    /// What the child measured.
    struct Outcome: Sendable {
        /// Records enumerated.
        var count: Int
        /// Sum of their ages.
        var ageSum: Int
        /// Time of the enumeration alone (cold process, warm OS file cache).
        var seconds: Double
        /// The child's peak RSS (`VmHWM`) in KiB at the end.
        var peakKiB: Int
    }

    /// In the child: opens `path`, enumerates, and prints `count=… age_sum=… seconds=… peak_kb=…`.
    /// - Throws: `DatabaseError` or `BenchError` when the file cannot be opened or read.
    static func runInChild(path: String, implementation: Implementation, configuration: BenchConfiguration) throws {
        let result: (value: (count: Int, ageSum: Int), seconds: Double)
        switch implementation {
        case .c:
            let database = try BaselineDatabase(
                path: path, key: BenchKeys.sqlcipherKey(for: configuration.keyKind), configuration: configuration)
            result = try Stopwatch.measure { try database.enumerate(collection: Records.collection) }
        case .coffer:
            let database = try CofferStore.open(URL(fileURLWithPath: path), configuration)
            let connection = try database.newConnection(config: CofferStore.uncached)
            result = try Stopwatch.measure { try CofferSuite.enumerate(connection) }
        }
        let peak = ProcessStatus.peakResidentKiB() ?? 0
        print(
            "count=\(result.value.count) age_sum=\(result.value.ageSum) "
                + "seconds=\(String(format: "%.6f", result.seconds)) peak_kb=\(peak)")
    }

    /// In the parent: runs the child on `path` and returns what it measured.
    /// - Throws: `BenchError` with code `.io` when the child cannot run, fails, or prints something else.
    static func spawn(
        path: String, implementation: Implementation, configuration: BenchConfiguration
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = try ChildExecutable.url()
        process.arguments =
            [
                "--child-enumerate", path, "--child-implementation", implementation.rawValue,
                "--settings", configuration.preset.rawValue, "--keys", configuration.keyKind.rawValue,
                "--n", String(configuration.recordCount),
            ] + (configuration.kdfIterations == BenchConfiguration.smokeKDFIterations ? ["--smoke"] : [])
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw BenchError(.io, "cannot start the W9 child process: \(error.localizedDescription)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, let outcome = parse(text) else {
            throw BenchError(
                .io, "the W9 child (\(implementation.rawValue)) failed with status \(process.terminationStatus)")
        }
        return outcome
    }

    private static func parse(_ text: String) -> Outcome? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("count=") }) else { return nil }
        var fields: [String: String] = [:]
        for field in line.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let count = fields["count"].flatMap({ Int($0) }), let ageSum = fields["age_sum"].flatMap({ Int($0) }),
            let seconds = fields["seconds"].flatMap({ Double($0) }), let peak = fields["peak_kb"].flatMap({ Int($0) })
        else { return nil }
        return Outcome(count: count, ageSum: ageSum, seconds: seconds, peakKiB: peak)
    }

}
