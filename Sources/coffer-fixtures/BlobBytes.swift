import Foundation

/// Coffer blob headers (Sources/Coffer/Serialization/BLOB-FORMAT.md), read and crafted by hand
/// so the generator depends on the documented bytes, not on the library's parser.
enum BlobBytes {
    /// The header magic `C0 46 46 52`.
    static let magic: [UInt8] = [0xC0, 0x46, 0x46, 0x52]

    /// Pins a stored blob for the manifest: a header-less blob whole, a headered one by its header.
    static func pin(_ blob: Data) -> (exact: String?, header: String?) {
        guard let length = headerLength(blob) else { return (Hex.string(blob), nil) }
        return (nil, Hex.string(blob.prefix(length)))
    }

    /// The length of the header (magic, version, flags, count, records), or nil when `blob` has none.
    static func headerLength(_ blob: Data) -> Int? {
        let bytes = [UInt8](blob)
        guard bytes.count >= 7, Array(bytes[0..<4]) == magic else { return nil }
        var offset = 7
        for _ in 0..<Int(bytes[6]) {
            guard offset + 2 <= bytes.count else { return nil }
            offset += 2 + Int(bytes[offset + 1])
        }
        return offset <= bytes.count ? offset : nil
    }

    /// The offset of the first record's parameters with stage id `stageID`, if any.
    static func parameterOffset(_ blob: Data, stageID: UInt8) -> Int? {
        let bytes = [UInt8](blob)
        guard headerLength(blob) != nil else { return nil }
        var offset = 7
        for _ in 0..<Int(bytes[6]) {
            if bytes[offset] == stageID { return offset + 2 }
            offset += 2 + Int(bytes[offset + 1])
        }
        return nil
    }

    /// A little-endian `UInt32`.
    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
