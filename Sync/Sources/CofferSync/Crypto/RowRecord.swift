public import Foundation

/// A row's content as it travels, in clear only on devices: where it lives, its wire-encoded
/// values (absent for a tombstone), and when it was written.
public struct RowRecord: Sendable, Hashable {
    /// The row's collection.
    public var collection: String
    /// The row's key.
    public var key: String
    /// The object in Coffer's binary Codable format; nil for a tombstone.
    public var object: Data?
    /// The metadata in Coffer's binary Codable format, when the row has any.
    public var metadata: Data?
    /// When the write happened (and on which device).
    public var timestamp: HybridTimestamp

    /// Describes one row; a nil object is a tombstone (and then the metadata is ignored).
    public init(collection: String, key: String, object: Data?, metadata: Data?, timestamp: HybridTimestamp) {
        self.collection = collection
        self.key = key
        self.object = object
        self.metadata = object == nil ? nil : metadata
        self.timestamp = timestamp
    }

    /// Whether the record deletes the row.
    public var isTombstone: Bool { object == nil }

    static let formatTag: UInt8 = 1

    /// The plaintext of a sealed row: tag, collection, key, flags, values, clock, writer.
    func encoded() -> Data {
        var writer = ByteWriter()
        writer.append(Self.formatTag)
        writer.append(prefixed: collection)
        writer.append(prefixed: key)
        writer.append(UInt8((object != nil ? 1 : 0) | (metadata != nil ? 2 : 0)))
        if let object { writer.append(prefixed: object) }
        if let metadata { writer.append(prefixed: metadata) }
        writer.append(timestamp.packed)
        writer.append(timestamp.device)
        return writer.data
    }

    /// Parses ``encoded()``; nil for anything malformed.
    init?(decoding data: Data) {
        var reader = ByteReader(data)
        guard reader.byte() == Self.formatTag, let collection = reader.prefixedString(),
            let key = reader.prefixedString(), let flags = reader.byte(), flags & ~3 == 0
        else { return nil }
        var object: Data?
        var metadata: Data?
        if flags & 1 != 0 {
            guard let bytes = reader.prefixed() else { return nil }
            object = Data(bytes)
        }
        if flags & 2 != 0 {
            guard object != nil, let bytes = reader.prefixed() else { return nil }
            metadata = Data(bytes)
        }
        guard let packed = reader.uint64(), let device = reader.uuid(), reader.isAtEnd else { return nil }
        self.init(
            collection: collection, key: key, object: object, metadata: metadata,
            timestamp: HybridTimestamp(packed: packed, device: device))
    }
}
