import Coffer
import Foundation

/// The harness: prepares the records, checks them, runs every selected suite under every configuration and reports.
struct BenchRunner {
    /// N.
    let recordCount: Int
    /// The settings presets to run, in order.
    let presets: [BenchConfiguration.Preset]
    /// The key kinds to run under each preset, in order.
    let keyKinds: [BenchConfiguration.KeyKind]
    /// The workload ids asked for, or nil for all.
    let requestedWorkloads: [String]?
    /// Whether to print one JSON document instead of lines.
    let json: Bool
    /// Where the run's temporary directory is made.
    let parentDirectory: URL
    /// Durations, repetitions, the W9 size and the C baseline's checkpoint and vacuum choices.
    let options: RunOptions

    /// Runs everything and prints the report.
    /// - Throws: `BenchError` when a sanity check fails, a suite fails, or any implementation's checks differ from
    ///   the expected ones (after the whole report was printed).
    func run() throws {
        let suites = SuiteRegistry.suites()
        let selected = try selection(from: suites)
        let configurations = presets.flatMap { preset in
            keyKinds.map {
                BenchConfiguration(preset: preset, keyKind: $0, recordCount: recordCount, smoke: options.smoke)
            }
        }
        guard let first = configurations.first else { throw BenchError(.usage, "no configuration selected") }
        let root = parentDirectory.appendingPathComponent("coffer-bench-\(UUID().uuidString)")
        try makeDirectory(root)
        defer { try? FileManager.default.removeItem(at: root) }

        let report = Report(json: json, document: header())
        report.info(
            "coffer-bench date=\(Date().ISO8601Format()) cpus=\(ProcessStatus.processorCount) "
                + "model=\"\(ProcessStatus.cpuModel() ?? "unknown")\"")
        report.libraries(try libraryVersions(in: root))
        report.info(Report.timingNote)

        let records = try Records.make(count: recordCount)
        report.info(
            "records n=\(records.count) w2_transactions=\(records.updateKeys.count) w3_reads=\(records.readKeys.count) "
                + "collection=\(Records.collection) encoder=JSONEncoder(.sortedKeys)")
        report.sanity(try SanityCheck.verify(records))
        report.expected(records.expected)
        report.info(optionsLine())
        let scaleRecords = selected.contains("W9") ? try Records.make(count: options.scaleCount) : nil
        if let scaleRecords {
            report.info("records(W9) n=\(scaleRecords.count) w3_reads=\(scaleRecords.readKeys.count)")
        }

        var mismatched: [String] = []
        var runWide: [String: WorkloadResult] = [:]
        for suite in suites where suite.scope == .once && runs(suite, selected) {
            let context = SuiteContext(
                records: records, configuration: first, directory: root, options: options, scaleRecords: scaleRecords,
                earlier: runWide)
            let results = try run(suite, selected, context, root, report, ratios: [:], mismatched: &mismatched)
            for result in results { runWide[Self.figureKey(suite, result)] = result }
        }
        for configuration in configurations {
            report.configuration(configuration)
            var baseline: [String: Double] = [:]
            var earlier = runWide
            for suite in suites where suite.scope == .perConfiguration && runs(suite, selected) {
                let context = SuiteContext(
                    records: records, configuration: configuration, directory: root, options: options,
                    scaleRecords: scaleRecords, earlier: earlier)
                let results = try run(suite, selected, context, root, report, ratios: baseline, mismatched: &mismatched)
                for result in results {
                    earlier[Self.figureKey(suite, result)] = result
                    // Ratios compare time per operation, which for equal operation counts is the time ratio and
                    // stays meaningful for fixed-time workloads (W10), whose operation counts differ.
                    if suite.isBaseline, result.ops > 0 { baseline[result.id] = result.seconds / Double(result.ops) }
                }
            }
            Targets.verdicts(earlier).forEach { report.info("\($0) \(configuration.label)") }
        }
        try report.finish(peakResidentKiB: ProcessStatus.peakResidentKiB())
        guard mismatched.isEmpty else {
            throw BenchError(
                .checkMismatch, "checks differ from the expected ones: \(mismatched.joined(separator: "; "))")
        }
    }

    /// The key a figure is known by in `SuiteContext.earlier`: `<implementation>:<id>`, or the bare id.
    static func figureKey(_ suite: any BenchmarkSuite, _ result: WorkloadResult) -> String {
        suite.implementation.isEmpty ? result.id : "\(suite.implementation):\(result.id)"
    }

    /// Runs one suite in its own fresh directory and reports its figures, notes and checks.
    private func run(
        _ suite: any BenchmarkSuite, _ selected: Set<String>, _ shared: SuiteContext, _ root: URL, _ report: Report,
        ratios baseline: [String: Double], mismatched: inout [String]
    ) throws -> [WorkloadResult] {
        let configuration = shared.configuration
        let records = shared.records
        let name = suite.implementation.isEmpty ? "codec" : suite.implementation
        let directory = root.appendingPathComponent("\(configuration.slug)-\(name)-\(UUID().uuidString.prefix(8))")
        try makeDirectory(directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ids = Set(suite.workloads.map(\.id)).intersection(selected)
        let context = SuiteContext(
            records: records, configuration: configuration, directory: directory, options: shared.options,
            scaleRecords: shared.scaleRecords, earlier: shared.earlier)
        let outcome = try suite.run(selected: ids, context: context)

        let perConfiguration = suite.scope == .perConfiguration
        report.notes(outcome.notes, implementation: name)
        for result in outcome.results {
            let perOp = result.ops > 0 ? result.seconds / Double(result.ops) : result.seconds
            let ratio = result.baselineID.flatMap { baseline[$0] }.map { perOp / $0 }
            report.figure(
                result, implementation: suite.implementation,
                configuration: perConfiguration ? configuration : nil, ratioVsC: ratio)
        }
        if outcome.checks != SanityFigures() {
            report.checks(
                outcome.checks, implementation: name, configuration: configuration, expected: records.expected)
            mismatched += outcome.checks.mismatches(against: records.expected).map {
                "\(name) \(configuration.label): \($0)"
            }
        }
        return outcome.results
    }

    /// The workload ids to run: those asked for (any case), plus the baseline workloads they are compared with.
    private func selection(from suites: [any BenchmarkSuite]) throws -> Set<String> {
        let known = suites.flatMap(\.workloads)
        guard let requestedWorkloads else { return Set(known.map(\.id)) }
        var selected = Set<String>()
        for requested in requestedWorkloads {
            let matches = known.filter { $0.id.lowercased() == requested.lowercased() }
            guard !matches.isEmpty else {
                let ids = Set(known.map(\.id)).sorted()
                throw BenchError(.usage, "unknown workload '\(requested)'; known: \(ids.joined(separator: ","))")
            }
            for info in matches {
                selected.insert(info.id)
                if let baselineID = info.baselineID { selected.insert(baselineID) }
            }
        }
        return selected
    }

    /// The run-wide knobs, as one information line.
    private func optionsLine() -> String {
        let readers = options.concurrencyReaders.map(String.init).joined(separator: ",")
        return "options w10_seconds=\(options.concurrencySeconds) w10_readers=\(readers) "
            + "w10_reads_per_tx=\(ConcurrentRun.readsPerTransaction) w9_n=\(options.scaleCount) "
            + "w11_repetitions=\(options.openRepetitions) c_checkpoint=\(options.cCheckpoint.rawValue)"
            + "(\(options.cCheckpoint == .off ? "wal_autocheckpoint=0" : "wal_autocheckpoint=1000,inline")) "
            + "c_w10_checkpoint=automatic(wal_autocheckpoint=1000,inline) "
            + "c_busy_timeout_ms=10000 c_auto_vacuum=\(options.cAutoVacuum.rawValue) "
            + "coffer_checkpoint=background-passive-when-idle"
            + "(autocheckpoint=0) coffer_auto_vacuum=FULL coffer_wal_truncation_bytes="
            + (options.cofferWALTruncationBytes.map(String.init)
                ?? "default(\(DatabaseOptions().walTruncationThreshold))")
    }

    private func runs(_ suite: any BenchmarkSuite, _ selected: Set<String>) -> Bool {
        suite.workloads.contains { selected.contains($0.id) }
    }

    private func header() -> ReportDocument {
        ReportDocument(
            date: Date().ISO8601Format(), command: CommandLine.arguments.joined(separator: " "),
            machine: [
                "cpuModel": ProcessStatus.cpuModel() ?? "unknown", "processors": "\(ProcessStatus.processorCount)",
            ],
            recordCount: recordCount, timing: Report.timingNote)
    }

    /// The SQLite and SQLCipher versions, read from a throw-away database.
    private func libraryVersions(in root: URL) throws -> [(name: String, value: String)] {
        let path = root.appendingPathComponent("versions.sqlite").path
        let configuration = BenchConfiguration(preset: .defaults, keyKind: .raw, recordCount: 0)
        let database = try BaselineDatabase(
            path: path, key: BenchKeys.sqlcipherKey(for: .raw), configuration: configuration)
        return [
            (name: "sqlite_version", value: BaselineDatabase.sqliteVersion),
            (name: "cipher_version", value: try database.pragma("cipher_version")),
            (name: "cipher_provider", value: try database.pragma("cipher_provider")),
            (name: "cipher_provider_version", value: try database.pragma("cipher_provider_version")),
        ]
    }

    private func makeDirectory(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw BenchError(.io, "cannot create \(url.path): \(error.localizedDescription)")
        }
    }
}
