import ArgumentParser
import Coffer
import Foundation

/// `coffer export-json`: writes rows as JSON Lines.
struct ExportJSON: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-json",
        abstract: "Write every row (or those of --collection) as JSON Lines, one row per line.",
        discussion: """
            Each line is {"collection","key","value","metadata"}; values in Coffer's binary Codable \
            format are written as the JSON JSONEncoder would have written for them (an import stores \
            that JSON), and other values that are not single-line JSON in base64 as \
            "valueBase64"/"metadataBase64". The export reads one \
            consistent snapshot and streams, so memory stays flat. THE OUTPUT IS NOT ENCRYPTED. \
            An export to --output interrupted before its file is in place leaves no file behind (and \
            a file it was to replace as it was). With --json and no --output, standard output gets one \
            JSON document instead: {"rows": [ROW, …], "count": N, "complete": true}, each ROW an \
            object as above, streamed; a failed export still closes it, with "complete": false. With \
            --json and --output, the file is JSON Lines and standard output gets {"count", "output"}.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var progress: ProgressOptions
    @OptionGroup var format: OutputOptions

    @Option(name: .long, help: "Export only this collection (repeat for several).")
    var collection: [String] = []

    @Option(
        name: .long, help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "path")
    )
    var output: String?

    @Flag(name: .long, help: "Replace the --output file if it exists.")
    var force = false

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let sink =
            try output.map { try OutputFile.creating(URL(fileURLWithPath: $0), replacing: force) }
            ?? OutputFile.standardOutput()
        let placed = output.map { UndoableOutput(URL(fileURLWithPath: $0)) }
        Interruption.shared.onForcedStop { placed?.undo() }
        let collections = collection
        let progress = progress
        let document = format.json && output == nil
        let count = try Interruption.shared.whileCancellable {
            try opened.connection.read { tx -> Int64 in
                let total =
                    collections.isEmpty
                    ? try tx.numberOfKeysInAllCollections()
                    : try Set(collections).reduce(0) { $0 + (try tx.numberOfKeys(inCollection: $1)) }
                let reporter = progress.reporter(label: "export-json", unit: "rows", total: Int64(total))
                var exporter = RowExporter(sink: sink, reporter: reporter, document: document)
                do {
                    if collections.isEmpty {
                        try tx.enumerateRowsInAllCollections { collection, key, object, metadata, _ in
                            try exporter.write(tx, collection, key, object, metadata)
                        }
                    } else {
                        var seen = Set<String>()
                        for name in collections where seen.insert(name).inserted {
                            try tx.enumerateRows(inCollection: name) { key, object, metadata, _ in
                                try exporter.write(tx, name, key, object, metadata)
                            }
                        }
                    }
                    try Self.finish(sink, placed: placed, exporter: exporter)
                } catch {
                    Interruption.shared.onForcedStop(nil)
                    if exporter.count > 0 { try? exporter.close(complete: false) }
                    sink.discard()
                    placed?.undo()
                    reporter.finish(succeeded: false)
                    throw error
                }
                reporter.finish()
                return exporter.count
            }
        }
        guard let output else { return }
        if format.json {
            try JSONOutput.print(Result(count: count, output: output))
        } else {
            StandardStreams.writeError("Exported \(count) row(s) to \(output)\n")
        }
    }

    /// `--json` output with `--output`: the rows written and where.
    struct Result: Codable, Equatable {
        var count: Int64
        var output: String
    }

    /// Puts the export in place (a file) or writes out its end (standard output), and passes the
    /// point of no return; after a Ctrl-C that came first, the caller takes the file back out.
    /// - Throws: ``CLIError`` `.cancelled`, `.io`.
    private static func finish(_ sink: OutputFile, placed: UndoableOutput?, exporter: RowExporter) throws {
        guard let placed else {
            try Interruption.shared.commit("every row is written")
            try exporter.close(complete: true)
            try sink.commit()
            return
        }
        try sink.commit()
        placed.markPlaced()
        try Interruption.shared.commit("the export is complete")
        placed.keep()
    }
}
