import ArgumentParser
import Coffer
import Foundation

/// `coffer import-json`: reads rows written by `export-json`.
struct ImportJSON: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-json",
        abstract: "Read JSON Lines rows (as written by export-json) into the database.",
        discussion: """
            Rows are written in transactions of --batch-size rows, replacing existing rows with the \
            same collection and key; values are stored byte for byte as they appear in the input. \
            Memory stays flat whatever the input size. If the import fails or is interrupted, the \
            batches committed before stay (the message says how many rows); the current batch is \
            rolled back. With --passphrase-stdin and no --input, the first line of standard input \
            is the passphrase.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var progress: ProgressOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: ArgumentHelp("Read from this file instead of standard input.", valueName: "path"))
    var input: String?

    @Option(name: .long, help: "Rows per transaction.")
    var batchSize = 1_000

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let standardInput = LineReader.standardInput()
        let opened = try OpenedDatabase.open(location, keys: keys, input: standardInput)
        let inputURL = input.map { URL(fileURLWithPath: $0) }
        let reader = try inputURL.map { try LineReader(url: $0) } ?? standardInput
        let total = try inputURL.map { Int64(try Self.countLines(in: $0)) }
        let reporter = progress.reporter(label: "import-json", unit: "rows", total: total)
        var imported: Int64 = 0
        do {
            try Interruption.shared.whileCancellable {
                var batch: [RowLine] = []
                var lineNumber = 0
                while let line = try reader.readLine() {
                    lineNumber += 1
                    try Interruption.shared.checkpoint()
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                    batch.append(try RowLine(decoding: line, lineNumber: lineNumber))
                    if batch.count >= batchSize {
                        imported += try Self.write(batch, to: opened.connection)
                        batch.removeAll(keepingCapacity: true)
                        reporter.update(completed: imported)
                    }
                }
                try Interruption.shared.checkpoint()
                imported += try Self.write(batch, to: opened.connection)
                // A Ctrl-C during the last write cancels here: every row is kept, and the message says so.
                try Interruption.shared.commit("all \(imported) row(s) are imported")
                reporter.update(completed: imported)
            }
        } catch let error as CLIError where error.code == .cancelled {
            reporter.finish(succeeded: false)
            throw CLIError.cancelled("cancelled; the \(imported) row(s) imported before were kept")
        } catch {
            reporter.finish(succeeded: false)
            guard imported > 0 else { throw error }
            throw NotedError(underlying: error, note: "\(imported) row(s) imported before the failure were kept")
        }
        try opened.finishWriting()
        reporter.finish()
        if output.json {
            try JSONOutput.print(Result(database: opened.database.url.path, imported: imported))
        } else {
            print("Imported \(imported) row(s) into \(opened.database.url.path)")
        }
    }

    /// `--json` output.
    struct Result: Codable, Equatable {
        var database: String
        var imported: Int64
    }

    /// Writes one batch in one transaction and returns its size.
    private static func write(_ batch: [RowLine], to connection: Connection) throws -> Int64 {
        guard !batch.isEmpty else { return 0 }
        try connection.readWrite { tx in
            for row in batch {
                try tx.setObject(
                    row.object, forKey: row.key, inCollection: row.collection, withMetadata: row.metadata,
                    serializedObject: row.object, serializedMetadata: row.metadata)
            }
        }
        return Int64(batch.count)
    }

    /// The number of lines in the file, for the progress total.
    /// - Complexity: Reads the file once, in 1 MiB chunks.
    static func countLines(in url: URL) throws -> Int {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw CLIError(.notFound, "cannot open \(url.path)")
        }
        defer { try? handle.close() }
        var lines = 0
        var last: UInt8?
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            last = chunk.last
        }
        if let last, last != 0x0A { lines += 1 }
        return lines
    }
}
