import Coffer
import Foundation

/// Writes rows to an ``OutputFile`` one line each, reporting progress and stopping on Ctrl-C.
struct RowExporter {
    /// Where the lines go.
    let sink: OutputFile
    /// Told about every row written.
    let reporter: ProgressReporter
    /// Rows written so far.
    private(set) var count: Int64 = 0

    /// Creates an exporter writing to `sink`.
    init(sink: OutputFile, reporter: ProgressReporter) {
        self.sink = sink
        self.reporter = reporter
    }

    /// Writes one row.
    ///
    /// Objects of collections without a codec arrive as ``EncodedValue`` holding the stored
    /// bytes; anything else is read again as stored bytes.
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
        try sink.write(
            RowLine(collection: collection, key: key, object: objectBytes, metadata: metadataBytes).encoded())
        try sink.write(CollectionOfOne(UInt8(ascii: "\n")))
        count += 1
        reporter.update(completed: count)
    }
}
