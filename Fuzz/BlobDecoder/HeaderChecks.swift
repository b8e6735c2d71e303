import Coffer
import CofferFuzzSupport
import Foundation

/// The header parser on any bytes: it returns a header that fits inside the blob, or throws one of
/// the codes `BlobHeader.init(parsing:)` documents.
enum HeaderChecks {
    static let parseCodes: Set<SerializationError.Code> = [
        .badMagic, .truncated, .unsupportedVersion, .malformedHeader,
    ]

    /// Parses `blob` and checks the result against the format.
    static func check(_ blob: Data) {
        let header: BlobHeader
        do {
            header = try BlobHeader(parsing: blob)
        } catch {
            fuzzCheck(parseCodes.contains(error.code), "header parsing threw \(error.code): \(error)")
            fuzzCheck((error.code == .badMagic) == !BlobHeader.hasMagic(blob), "badMagic iff the magic is absent")
            return
        }
        fuzzCheck(BlobHeader.hasMagic(blob), "a header parsed from a blob without the magic")
        fuzzCheck(header.version == BlobHeader.currentVersion, "header version \(header.version) accepted")
        fuzzCheck(
            BlobHeader.Flags([.compressed, .encrypted]).isSuperset(of: header.flags), "reserved flag bits accepted")
        fuzzCheck(header.records.count <= BlobHeader.maxRecords, "\(header.records.count) records accepted")
        let recordBytes = header.records.reduce(0) { $0 + 2 + $1.parameters.count }
        fuzzCheck(header.payloadOffset == 7 + recordBytes, "payload offset does not follow the records")
        fuzzCheck(header.payloadOffset <= blob.count, "payload offset beyond the blob")
    }
}
