import Coffer
import Foundation

/// Writes rows to an ``OutputFile`` one line each, reporting progress and stopping on Ctrl-C.
///
/// As JSON Lines (the export format), or, for `export-json --json` on standard output, as one
/// JSON document `{"rows":[ROW,…],"count":N,"complete":true}` whose rows are the same objects,
/// one per line, streamed so memory stays flat.
struct RowExporter {
    /// Where the lines go.
    let sink: OutputFile
    /// Told about every row written.
    let reporter: ProgressReporter
    /// Whether the rows are wrapped in one JSON document rather than written as JSON Lines.
    let document: Bool
    /// Rows written so far.
    private(set) var count: Int64 = 0

    /// Creates an exporter writing to `sink`.
    init(sink: OutputFile, reporter: ProgressReporter, document: Bool = false) {
        self.sink = sink
        self.reporter = reporter
        self.document = document
    }

    /// Ends the document (nothing for JSON Lines); `complete: false` after a failure, so that
    /// what was streamed still parses and says it is partial.
    /// - Throws: ``CLIError`` `.io`.
    func close(complete: Bool) throws {
        guard document else { return }
        if count == 0 { try sink.write(#"{"rows":["#) }
        try sink.write("\n],\"count\":\(count),\"complete\":\(complete)}\n")
    }

    /// Writes one row.
    ///
    /// Objects of collections without a codec arrive as ``EncodedValue`` holding the stored
    /// bytes; anything else is read again as stored bytes. Binary Codable values are written as
    /// their JSON (``StoredValue``), so an import stores them as JSON, which every Codable codec
    /// reads; `Database.reencode(collection:)` turns them back into binary.
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
        if document { try sink.write(count == 0 ? #"{"rows":["# + "\n" : ",\n") }
        try sink.write(
            RowLine(
                collection: collection, key: key, object: StoredValue.readable(objectBytes),
                metadata: StoredValue.readable(metadataBytes)
            ).encoded())
        if !document { try sink.write(CollectionOfOne(UInt8(ascii: "\n"))) }
        count += 1
        reporter.update(completed: count)
    }
}
