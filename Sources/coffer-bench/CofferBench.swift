import ArgumentParser
import CofferToolSupport
import Foundation

/// The `coffer-bench` command: runs the fixed workloads of BENCHMARKS.md against the C baseline and Coffer.
@main
struct CofferBench: ParsableCommand {
    /// Runs the benchmark, then lets its databases finish closing before the process exits.
    static func main() { mainWaitingForDatabasesToClose() }

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

    @Flag(
        help: """
            A quick run of every workload for CI: N = 1,000, W9 and Q1t at 10 × N, W10 for 0.05 s per reader count, \
            2 W11 repetitions and the cheapest scrypt for the W11 key file, unless given explicitly.
            """)
    var smoke = false

    @Option(help: "Seconds each W10 measurement runs (default: 10; 0.05 with --smoke).")
    var duration: Double?

    @Option(
        name: .customLong("scale-n"), help: "Records of W9 and rows of Q1t (default: 1,000,000; 10 × N with --smoke).")
    var scaleN: Int?

    @Option(help: "Opens per key kind in W11; the median is reported (default: 21; 2 with --smoke).")
    var repetitions: Int?

    @Option(
        name: .customLong("c-checkpoint"),
        help: """
            The C baseline's WAL checkpoints in W1–W5 and W9: off (as on Coffer's handles; the default) or \
            automatic (SQLite's, every 1,000 pages, inline). W10 always uses automatic.
            """)
    var cCheckpoint: RunOptions.CheckpointMode = .off

    @Option(
        name: .customLong("c-auto-vacuum"),
        help: "The C baseline's auto_vacuum on new files: none (BENCHMARKS.md) or full (as Coffer).")
    var cAutoVacuum: RunOptions.AutoVacuumMode = .none

    @Option(
        name: .customLong("coffer-wal-truncation-mib"),
        help: "Diagnostic: Coffer's walTruncationThreshold in MiB (default: the library's, 4 MiB).")
    var cofferWALTruncationMiB: Int?

    @Flag(help: "Coffer and CofferRaw use CollectionHandle<User> / CollectionHandle<Data> instead of collection names.")
    var collectionHandles = false

    @Option(help: .hidden)
    var childEnumerate: String?

    @Option(help: .hidden)
    var childPrefs: String?

    @Option(help: .hidden)
    var childMpWriter: String?

    @Option(help: .hidden)
    var childMpHolder: String?

    @Option(help: .hidden)
    var childImplementation: String = EnumerationChild.Implementation.coffer.rawValue

    @Option(help: "Directory in which the run's temporary directory is made (default: the system temporary directory).")
    var directory: String?

    /// N after `--smoke` is applied.
    var recordCount: Int { n ?? (smoke ? 1000 : 100_000) }

    /// The run-wide knobs after `--smoke` is applied.
    var runOptions: RunOptions {
        var options = RunOptions()
        options.smoke = smoke
        options.concurrencySeconds = duration ?? (smoke ? 0.05 : 10)
        options.scaleCount = scaleN ?? (smoke ? min(10 * recordCount, 1_000_000) : 1_000_000)
        options.openRepetitions = repetitions ?? (smoke ? 2 : 21)
        options.cCheckpoint = cCheckpoint
        options.cAutoVacuum = cAutoVacuum
        options.cofferWALTruncationBytes = cofferWALTruncationMiB.map { $0 * 1024 * 1024 }
        options.collectionHandles = collectionHandles
        return options
    }

    /// Rejects an N the key format cannot order (six digits) or that is empty, and out-of-range knobs.
    func validate() throws {
        guard (1...1_000_000).contains(recordCount), (1...1_000_000).contains(runOptions.scaleCount) else {
            throw ValidationError(
                "--n and --scale-n must be between 1 and 1,000,000 (keys are six-digit, ordered by index)")
        }
        guard runOptions.concurrencySeconds > 0, runOptions.concurrencySeconds <= 3600 else {
            throw ValidationError("--duration must be more than 0 and at most 3,600 seconds")
        }
        guard (1...1001).contains(runOptions.openRepetitions) else {
            throw ValidationError("--repetitions must be between 1 and 1,001")
        }
        if childEnumerate != nil {
            guard settings != .both, keys != .both,
                EnumerationChild.Implementation(rawValue: childImplementation) != nil
            else {
                throw ValidationError("the child mode needs one --settings, one --keys and an implementation")
            }
        }
    }

    /// Runs the benchmark and prints its report (or, in the hidden child mode, one W9 enumeration).
    func run() throws {
        if let childPrefs {
            try PreferencesSuite.runInChild(path: childPrefs)
            return
        }
        if let path = childMpWriter ?? childMpHolder {
            let configuration = BenchConfiguration(
                preset: settings == .defaults ? .defaults : .recommended,
                keyKind: keys == .passphrase ? .passphrase : .raw, recordCount: recordCount, smoke: smoke)
            if childMpWriter != nil {
                try CofferProcessSuite.runWriterInChild(path: path, configuration: configuration)
            } else {
                try CofferProcessSuite.runHolderInChild(path: path, configuration: configuration)
            }
            return
        }
        if let childEnumerate, let implementation = EnumerationChild.Implementation(rawValue: childImplementation) {
            let configuration = BenchConfiguration(
                preset: settings == .defaults ? .defaults : .recommended,
                keyKind: keys == .passphrase ? .passphrase : .raw, recordCount: recordCount, smoke: smoke)
            try EnumerationChild.runInChild(
                path: childEnumerate, implementation: implementation, configuration: configuration)
            return
        }
        let runner = BenchRunner(
            recordCount: recordCount,
            presets: settings == .both
                ? BenchConfiguration.Preset.allCases : [settings == .defaults ? .defaults : .recommended],
            keyKinds: keys == .both ? BenchConfiguration.KeyKind.allCases : [keys == .passphrase ? .passphrase : .raw],
            requestedWorkloads: workloads.map { list in
                list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            },
            json: json,
            parentDirectory: directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory,
            options: runOptions)
        try runner.run()
    }
}

extension RunOptions.CheckpointMode: ExpressibleByArgument {}

extension RunOptions.AutoVacuumMode: ExpressibleByArgument {}
