import ArgumentParser
import Coffer
import Foundation

/// `coffer export-json`: writes rows as JSON Lines.
struct ExportJSON: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-json",
        abstract: "Write every row (or those of --collection) as JSON Lines, one row per line.",
        discussion: """
            Each line is {"collection","key","value","metadata"}; values that are not single-line \
            JSON are written in base64 as "valueBase64"/"metadataBase64". The export reads one \
            consistent snapshot and streams, so memory stays flat. THE OUTPUT IS NOT ENCRYPTED. \
            An interrupted export to --output leaves no file behind.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var progress: ProgressOptions

    @Option(name: .long, help: "Export only this collection (repeat for several).")
    var collection: [String] = []

    @Option(name: .long, help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "path"))
    var output: String?

    @Flag(name: .long, help: "Replace the --output file if it exists.")
    var force = false

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let sink = try output.map { try OutputFile.creating(URL(fileURLWithPath: $0), replacing: force) }
            ?? OutputFile.standardOutput()
        let collections = collection
        let progress = progress
        let count = try Interruption.shared.whileCancellable {
            try opened.connection.read { tx -> Int64 in
                let total =
                    collections.isEmpty
                    ? try tx.numberOfKeysInAllCollections()
                    : try Set(collections).reduce(0) { $0 + (try tx.numberOfKeys(inCollection: $1)) }
                let reporter = progress.reporter(label: "export-json", unit: "rows", total: Int64(total))
                var exporter = RowExporter(sink: sink, reporter: reporter)
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
                    try sink.commit()
                } catch {
                    sink.discard()
                    reporter.finish(succeeded: false)
                    throw error
                }
                reporter.finish()
                return exporter.count
            }
        }
        if let output { StandardStreams.writeError("Exported \(count) row(s) to \(output)\n") }
    }
}

/// Writes rows to an ``OutputFile`` one line each, reporting progress and stopping on Ctrl-C.
struct RowExporter {
    let sink: OutputFile
    let reporter: ProgressReporter
    private(set) var count: Int64 = 0

    init(sink: OutputFile, reporter: ProgressReporter) {
        self.sink = sink
        self.reporter = reporter
    }

    /// Writes one row. Objects of collections without a codec arrive as ``EncodedValue`` holding
    /// the stored bytes; anything else is read again as stored bytes.
    mutating func write(
        _ tx: ReadTransaction, _ collection: String, _ key: String, _ object: any Sendable, _ metadata: (any Sendable)?
    ) throws {
        try Interruption.shared.checkpoint()
        let objectBytes: Data
        let metadataBytes: Data?
        if let encoded = object as? EncodedValue, metadata == nil || metadata is EncodedValue {
            objectBytes = encoded.data
            metadataBytes = (metadata as? EncodedValue)?.data
        } else {
            guard let row = try tx.serializedObjectAndMetadata(forKey: key, inCollection: collection) else { return }
            (objectBytes, metadataBytes) = (row.object, row.metadata)
        }
        try sink.write(RowLine(collection: collection, key: key, object: objectBytes, metadata: metadataBytes).encoded())
        try sink.write(CollectionOfOne(UInt8(ascii: "\n")))
        count += 1
        reporter.update(completed: count)
    }
}
