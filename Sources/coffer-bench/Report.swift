import Foundation

/// The output of a run: `#` information lines and figure lines as they are measured, or one JSON document at the end.
final class Report {
    /// What `ratio_vs_c` means, printed at the top of every report.
    static let timingNote =
        "every workload (C and Coffer alike) is timed in Swift with ContinuousClock around the call; "
        + "ratio_vs_c = time per operation / C's time per operation for the baseline workload of the same settings "
        + "and key, i.e. total_s / C total_s when both did the same operations (above 1 = slower than C)"

    private let json: Bool
    private var document: ReportDocument

    /// Starts a report that prints lines, or collects a JSON document when `json` is true.
    init(json: Bool, document: ReportDocument) {
        self.json = json
        self.document = document
    }

    /// Records library versions and prints them.
    func libraries(_ versions: [(name: String, value: String)]) {
        for version in versions { document.libraries[version.name] = version.value }
        info(versions.map { "\($0.name)=\(Self.quoted($0.value))" }.joined(separator: " "))
    }

    /// Records the passed sanity checks and prints them.
    func sanity(_ lines: [String]) {
        document.sanity = lines
        lines.forEach(info)
    }

    /// Records the expected checks and prints them.
    func expected(_ figures: SanityFigures) {
        document.expected = figures
        Self.checkLines(figures, prefix: "expected ", against: nil).forEach(info)
    }

    /// Prints an information line (`# text`); JSON reports drop it (their fields carry the same facts).
    func info(_ text: String) {
        if !json { print("# \(text)") }
    }

    /// Records a configuration and prints its settings line.
    func configuration(_ configuration: BenchConfiguration) {
        document.configurations.append(
            .init(
                settings: configuration.preset.rawValue, key: configuration.keyKind.rawValue,
                pageSize: configuration.effectivePageSize, cacheKiB: configuration.effectiveCacheKiB,
                kdfIterations: configuration.effectiveKDFIterations, hmac: configuration.effectiveHMAC, effective: [:]))
        let explicit = [
            configuration.pageSize.map { _ in "cipher_page_size" }, configuration.cacheKiB.map { _ in "cache_size" },
            configuration.kdfIterations.map { _ in "kdf_iter" }, configuration.useHMAC.map { _ in "cipher_use_hmac" },
        ].compactMap(\.self)
        info(
            "config \(configuration.label) page_size=\(configuration.effectivePageSize) "
                + "cache_kib=\(configuration.effectiveCacheKiB) kdf_iter=\(configuration.effectiveKDFIterations) "
                + "hmac=\(configuration.effectiveHMAC ? "on" : "off") journal_mode=WAL synchronous=NORMAL "
                + "pragmas_set=\(explicit.isEmpty ? "none(library defaults)" : explicit.joined(separator: ","))")
    }

    /// Records settings an implementation read back from its store and prints them.
    func notes(_ notes: [(key: String, value: String)], implementation: String) {
        guard !notes.isEmpty else { return }
        if !document.configurations.isEmpty {
            let last = document.configurations.count - 1
            document.configurations[last].effective[implementation] = Dictionary(
                notes.map { ($0.key, $0.value) }, uniquingKeysWith: { _, later in later })
        }
        info("\(implementation):effective " + notes.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }

    /// Records one figure and prints its line.
    func figure(
        _ result: WorkloadResult, implementation: String, configuration: BenchConfiguration?, ratioVsC: Double?
    ) {
        document.figures.append(
            .init(
                implementation: implementation, id: result.id, settings: configuration?.preset.rawValue,
                key: configuration?.keyKind.rawValue, ops: result.ops, opsPerSecond: result.opsPerSecond,
                totalSeconds: result.seconds, ratioVsC: ratioVsC,
                extra: Dictionary(result.extra.map { ($0.name, $0.value) }, uniquingKeysWith: { _, later in later })))
        guard !json else { return }
        var fields = [
            Self.prefixed(result.id, implementation),
            "ops_per_s=\(Self.rate(result.opsPerSecond))",
            "total_s=\(String(format: "%.6f", result.seconds))",
        ]
        if let ratioVsC { fields.append("ratio_vs_c=\(String(format: "%.2f", ratioVsC))") }
        fields += result.extra.map { "\($0.name)=\($0.value)" }
        if let configuration { fields.append(configuration.label) }
        print(fields.joined(separator: " "))
    }

    /// Records an implementation's checks and prints them, each line marked `ok` or `MISMATCH` against `expected`.
    func checks(
        _ figures: SanityFigures, implementation: String, configuration: BenchConfiguration, expected: SanityFigures
    ) {
        document.checks.append(
            .init(
                implementation: implementation, settings: configuration.preset.rawValue,
                key: configuration.keyKind.rawValue, figures: figures,
                ok: figures.mismatches(against: expected).isEmpty))
        Self.checkLines(figures, prefix: "\(implementation):", against: expected).forEach(info)
    }

    /// Prints the `RSS` line, or the whole JSON document.
    /// - Throws: `BenchError` with code `.io` when the document cannot be encoded.
    func finish(peakResidentKiB: Int?) throws {
        document.rssPeakKiB = peakResidentKiB
        guard json else {
            print("RSS peak_kb=\(peakResidentKiB.map(String.init) ?? "unknown")")
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            print(String(decoding: try encoder.encode(document), as: UTF8.self))
        } catch {
            throw BenchError(.io, "encoding the JSON report failed: \(error)")
        }
    }

    /// One line per check (`W3 checksum`, `W4 count/checksum`, `content fnv1a64`), each judged against `expected`.
    private static func checkLines(_ figures: SanityFigures, prefix: String, against expected: SanityFigures?)
        -> [String]
    {
        func verdict(_ part: SanityFigures) -> String {
            guard let expected else { return "" }
            let mismatches = part.mismatches(against: expected)
            return mismatches.isEmpty ? " ok" : " MISMATCH: \(mismatches.joined(separator: ", "))"
        }
        var lines: [String] = []
        if let checksum = figures.w3Checksum {
            lines.append("\(prefix)W3 checksum=\(checksum)" + verdict(SanityFigures(w3Checksum: checksum)))
        }
        if figures.w4Count != nil || figures.w4Checksum != nil {
            let part = SanityFigures(w4Count: figures.w4Count, w4Checksum: figures.w4Checksum)
            lines.append(
                "\(prefix)W4 count=\(figures.w4Count.map(String.init) ?? "?") "
                    + "checksum=\(figures.w4Checksum.map(String.init) ?? "?")" + verdict(part))
        }
        if figures.contentFNV1a64 != nil || figures.contentCount != nil {
            let part = SanityFigures(contentFNV1a64: figures.contentFNV1a64, contentCount: figures.contentCount)
            lines.append(
                "\(prefix)content fnv1a64=\(figures.contentFNV1a64 ?? "?") "
                    + "count=\(figures.contentCount.map(String.init) ?? "?")" + verdict(part))
        }
        return lines
    }

    private static func prefixed(_ id: String, _ implementation: String) -> String {
        implementation.isEmpty ? id : "\(implementation):\(id)"
    }

    private static func rate(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    private static func quoted(_ value: String) -> String {
        value.contains(" ") ? "\"\(value)\"" : value
    }
}
