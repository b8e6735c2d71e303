import Coffer
import Foundation

/// W8: `Preferences` (over a connection proxy) against Foundation's `UserDefaults` on the same keys and
/// values — set 10,000 keys, get them back, `flush()` until durable — then a reopen in a fresh process
/// that reads every key.
///
/// The keys are the first 10,000 record ids (`user-000000` …) and the values their `name` strings
/// (BENCHMARKS.md names "U1's keys and values" without defining them; this is the stand-in, stated in
/// the `#` lines). Both stores get the same 10,000 `set(_:forKey:)` calls and `string(forKey:)` calls.
struct PreferencesSuite: BenchmarkSuite {
    let implementation = "Coffer"
    let scope = SuiteScope.once
    let workloads = [WorkloadInfo("W8")]

    static let count = 10_000

    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        guard selected.contains("W8") else { return report }
        let users = context.records.users.prefix(Self.count)
        let pairs = users.map { ($0.id, $0.name) }
        report.notes = [
            (key: "w8_keys", value: "first-\(pairs.count)-record-ids,values=their-name-strings"),
            (key: "w8_store", value: "Preferences(suite:bench)-over-ConnectionProxy,raw-key,recommended"),
        ]

        // Foundation's UserDefaults, in a suite of its own (removed afterwards).
        let suiteName = "coffer-bench-\(UUID().uuidString)"
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw BenchError(.io, "cannot create a UserDefaults suite")
        }
        defer { defaults.removePersistentDomain(forName: suiteName) }
        let defaultsSet = Stopwatch.measure { for (key, value) in pairs { defaults.set(value, forKey: key) } }
        let defaultsGet = Stopwatch.measure { pairs.reduce(0) { $0 + (defaults.string(forKey: $1.0)?.count ?? 0) } }

        // Coffer.
        let url = context.directory.appendingPathComponent("w8.sqlite")
        var options = DatabaseOptions()
        options.key = .raw(Data(BenchKeys.rawKey))
        options.cipher = CipherSettings(pageSize: 4096)
        let (prefsSet, prefsGet, flush, watcher) = try {
            let database = try Database(url: url, options: options)
            let preferences = try Preferences(database: database, suite: "bench")
            let set = Stopwatch.measure { for (key, value) in pairs { preferences.set(value, forKey: key) } }
            let get = Stopwatch.measure { pairs.reduce(0) { $0 + (preferences.string(forKey: $1.0)?.count ?? 0) } }
            let flush = try Stopwatch.measure { try preferences.flush() }
            return (set, get, flush.seconds, ReleaseWatcher(database))
        }()
        guard prefsGet.value == defaultsGet.value else {
            throw BenchError(.checkMismatch, "W8: Preferences and UserDefaults returned different values")
        }
        try watcher.waitForRelease()
        let reopen = try Self.spawnReader(path: url.path)
        guard reopen.count == pairs.count else {
            throw BenchError(.checkMismatch, "W8: the fresh process read \(reopen.count) of \(pairs.count) keys")
        }
        let n = pairs.count
        report.results += [
            WorkloadResult(id: "W8-userdefaults-set", ops: n, seconds: defaultsSet.seconds),
            WorkloadResult(id: "W8-userdefaults-get", ops: n, seconds: defaultsGet.seconds),
            WorkloadResult(
                id: "W8-set", ops: n, seconds: prefsSet.seconds,
                extra: [("vs_userdefaults", String(format: "%.1f", defaultsSet.seconds / prefsSet.seconds))]),
            WorkloadResult(
                id: "W8-get", ops: n, seconds: prefsGet.seconds,
                extra: [("vs_userdefaults", String(format: "%.1f", defaultsGet.seconds / prefsGet.seconds))]),
            WorkloadResult(id: "W8-flush", ops: n, seconds: flush, extra: [("limit_s", "0.1")]),
            WorkloadResult(id: "W8-reopen-read", ops: n, seconds: reopen.seconds, extra: [("fresh_process", "yes")]),
        ]
        return report
    }

    /// In the child: opens the W8 database, reads every key of the suite, prints `count=… seconds=…`.
    static func runInChild(path: String) throws {
        var options = DatabaseOptions()
        options.key = .raw(Data(BenchKeys.rawKey))
        options.cipher = CipherSettings(pageSize: 4096)
        let result = try Stopwatch.measure { () throws -> Int in
            let database = try Database(url: URL(fileURLWithPath: path), options: options)
            let preferences = try Preferences(database: database, suite: "bench")
            return preferences.dictionaryRepresentation().values.filter { $0 is String }.count
        }
        print("count=\(result.value) seconds=\(String(format: "%.6f", result.seconds))")
    }

    private static func spawnReader(path: String) throws -> (count: Int, seconds: Double) {
        let process = Process()
        process.executableURL = try ChildExecutable.url()
        process.arguments = ["--child-prefs", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var fields: [String: String] = [:]
        for part in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let pieces = part.split(separator: "=", maxSplits: 1)
            if pieces.count == 2 { fields[String(pieces[0])] = String(pieces[1]) }
        }
        guard process.terminationStatus == 0, let count = fields["count"].flatMap({ Int($0) }),
            let seconds = fields["seconds"].flatMap({ Double($0) })
        else { throw BenchError(.io, "the W8 child failed with status \(process.terminationStatus)") }
        return (count, seconds)
    }
}
