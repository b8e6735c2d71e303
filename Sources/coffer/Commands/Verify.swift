import ArgumentParser
import Coffer
import Foundation

/// `coffer verify`: reads every row back and reports the ones that fail.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read every row's value and metadata back and report each one that fails.",
        discussion: """
            Every row is read from disk (which checks each page's HMAC) and decoded through its \
            collection's serializer chain; each failure is reported with its collection and key. \
            Exits with status 6 when a problem was found. The library does not expose \
            PRAGMA integrity_check, so pages that hold no row (free pages, extension tables) are not \
            checked.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var progress: ProgressOptions

    /// The outcome; also the `--json` output.
    struct Report: Codable, Equatable {
        /// One row (or the scan itself) that failed.
        struct Problem: Codable, Equatable {
            var collection: String?
            var key: String?
            /// "object", "metadata", or "scan" when the enumeration itself failed.
            var part: String
            var error: String
        }
        /// Rows checked.
        var rows: Int64
        /// Whether every row was reached (false when the scan itself failed).
        var complete: Bool
        var problems: [Problem]
    }

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let progress = progress
        var report = Report(rows: 0, complete: true, problems: [])
        try Interruption.shared.whileCancellable {
            try opened.connection.read { tx in
                let total = try tx.numberOfKeysInAllCollections()
                let reporter = progress.reporter(label: "verify", unit: "rows", total: Int64(total))
                do {
                    try tx.enumerateKeysInAllCollections { collection, key, _ in
                        try Interruption.shared.checkpoint()
                        Self.check(part: "object", collection, key, into: &report) {
                            _ = try tx.object(forKey: key, inCollection: collection)
                        }
                        Self.check(part: "metadata", collection, key, into: &report) {
                            _ = try tx.metadata(forKey: key, inCollection: collection)
                        }
                        report.rows += 1
                        reporter.update(completed: report.rows)
                    }
                } catch let error as CLIError {
                    reporter.finish(succeeded: false)
                    throw error
                } catch {
                    report.complete = false
                    report.problems.append(Report.Problem(part: "scan", error: "\(error)"))
                }
                reporter.finish(succeeded: report.complete)
            }
        }
        if output.json {
            try JSONOutput.print(report)
        } else {
            for problem in report.problems {
                let row = problem.key.map { "collection \"\(problem.collection ?? "")\" key \"\($0)\" (\(problem.part))" }
                print("\(row ?? "scan"): \(problem.error)")
            }
            let outcome = report.problems.isEmpty ? "no problems" : "\(report.problems.count) problem(s)"
            print("Verified \(report.rows) row(s)\(report.complete ? "" : " before the scan failed"): \(outcome)")
        }
        if !report.problems.isEmpty {
            throw CLIError(.verificationFailed, "verify found \(report.problems.count) problem(s)")
        }
    }

    private static func check(
        part: String, _ collection: String, _ key: String, into report: inout Report, _ read: () throws -> Void
    ) {
        do {
            try read()
        } catch {
            report.problems.append(Report.Problem(collection: collection, key: key, part: part, error: "\(error)"))
        }
    }
}
