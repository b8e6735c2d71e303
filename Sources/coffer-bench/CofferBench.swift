import ArgumentParser
import Foundation

/// The `coffer-bench` command: runs the fixed workloads of BENCHMARKS.md against the C baseline and Coffer.
@main
struct CofferBench: ParsableCommand {
    /// Which settings presets to run.
    enum SettingsChoice: String, CaseIterable, ExpressibleByArgument {
        case defaults, recommended, both
    }

    /// Which key kinds to run.
    enum KeyChoice: String, CaseIterable, ExpressibleByArgument {
        case passphrase, raw, both
    }

    /// The command's name, summary and help text.
    static let configuration = CommandConfiguration(
        commandName: "coffer-bench",
        abstract: "Run the fixed Coffer workloads (BENCHMARKS.md) against a C baseline on SQLCipher.",
        discussion: """
            Build with `swift build -c release --product coffer-bench`. Lines starting with # are information;
            figure lines are `<impl>:<id> ops_per_s=… total_s=… [ratio_vs_c=…] … settings=… key=…`.
            Exits non-zero when a sanity check or an implementation's checksum differs from the expected one.
            """)

    @Option(help: "Comma-separated workload ids to run, e.g. W1,W3 (default: all).")
    var workloads: String?

    @Option(help: "Number of records N, 1…1,000,000 (default: 100,000; 1,000 with --smoke).")
    var n: Int?

    @Flag(help: "Print one JSON document instead of lines.")
    var json = false

    @Option(help: "Settings: defaults (SQLCipher 3.x library defaults), recommended, or both.")
    var settings: SettingsChoice = .both

    @Option(help: "Key kinds: passphrase (PBKDF2 on every open), raw (x'<hex>' key), or both.")
    var keys: KeyChoice = .both

    @Flag(help: "A small, quick run for CI: N = 1,000 unless --n is given.")
    var smoke = false

    @Option(help: "Directory in which the run's temporary directory is made (default: the system temporary directory).")
    var directory: String?

    /// N after `--smoke` is applied.
    var recordCount: Int { n ?? (smoke ? 1000 : 100_000) }

    /// Rejects an N the key format cannot order (six digits) or that is empty.
    func validate() throws {
        guard (1...1_000_000).contains(recordCount) else {
            throw ValidationError("--n must be between 1 and 1,000,000 (keys are six-digit, ordered by index)")
        }
    }

    /// Runs the benchmark and prints its report.
    func run() throws {
        let runner = BenchRunner(
            recordCount: recordCount,
            presets: settings == .both
                ? BenchConfiguration.Preset.allCases : [settings == .defaults ? .defaults : .recommended],
            keyKinds: keys == .both ? BenchConfiguration.KeyKind.allCases : [keys == .passphrase ? .passphrase : .raw],
            requestedWorkloads: workloads.map { list in
                list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            },
            json: json,
            parentDirectory: directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory)
        try runner.run()
    }
}
