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
            The keys are listed first (memory grows with the number of rows, not their size). \
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

    /// Rows checked per read transaction.
    static let chunkSize = 1_000

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        var report = Report(rows: 0, complete: true, problems: [])
        try Interruption.shared.whileCancellable {
            var rows: [(collection: String, key: String)] = []
            do {
                try opened.connection.read { tx in
                    try tx.enumerateKeysInAllCollections { collection, key, _ in
                        try Interruption.shared.checkpoint()
                        rows.append((collection, key))
                    }
                }
            } catch let error as CLIError {
                throw error
            } catch {
                report.complete = false
                report.problems.append(Report.Problem(part: "scan", error: ErrorRenderer.describe(error)))
            }
            let reporter = progress.reporter(label: "verify", unit: "rows", total: Int64(rows.count))
            do {
                try check(rows, on: opened.connection, into: &report, reporter: reporter)
                try Interruption.shared.commit("every row is checked")
            } catch {
                reporter.finish(succeeded: false)
                throw error
            }
            reporter.finish()
        }
        if output.json {
            try JSONOutput.print(report)
        } else {
            for problem in report.problems {
                let row = problem.key.map {
                    "collection \"\(problem.collection ?? "")\" key \"\($0)\" (\(problem.part))"
                }
                print("\(row ?? "scan"): \(problem.error)")
            }
            let outcome = report.problems.isEmpty ? "no problems" : "\(report.problems.count) problem(s)"
            print("Verified \(report.rows) row(s)\(report.complete ? "" : " (the key scan failed)"): \(outcome)")
        }
        if !report.problems.isEmpty {
            throw CLIError(.verificationFailed, "verify found \(report.problems.count) problem(s)")
        }
    }

    /// Reads each row's object and metadata, a chunk per read transaction.
    ///
    /// After SQLite reports a damaged page, every later read in the same transaction fails too
    /// (the pager stays in its error state until the transaction ends), so a failure ends the
    /// transaction and checking resumes with the next row in a new one.
    private func check(
        _ rows: [(collection: String, key: String)], on connection: Connection, into report: inout Report,
        reporter: ProgressReporter
    ) throws {
        var next = 0
        while next < rows.count {
            next = try connection.read { tx -> Int in
                var index = next
                let end = min(next + Self.chunkSize, rows.count)
                while index < end {
                    try Interruption.shared.checkpoint()
                    let (collection, key) = rows[index]
                    index += 1
                    report.rows += 1
                    reporter.update(completed: report.rows)
                    let failed =
                        Self.check(part: "object", collection, key, into: &report) {
                            _ = try tx.object(forKey: key, inCollection: collection)
                        }
                        || Self.check(part: "metadata", collection, key, into: &report) {
                            _ = try tx.metadata(forKey: key, inCollection: collection)
                        }
                    if failed { break }
                }
                return index
            }
        }
    }

    /// Runs `read`; records its failure and returns true when it throws.
    private static func check(
        part: String, _ collection: String, _ key: String, into report: inout Report, _ read: () throws -> Void
    ) -> Bool {
        do {
            try read()
            return false
        } catch {
            report.problems.append(
                Report.Problem(collection: collection, key: key, part: part, error: ErrorRenderer.describe(error)))
            return true
        }
    }
}
