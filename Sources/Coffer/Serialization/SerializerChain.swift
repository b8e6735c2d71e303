public import Foundation

/// A collection's full path from object to stored bytes: a codec followed by byte stages.
public struct SerializerChain: Sendable {
    /// The object codec.
    public var codec: Serializer

    /// Creates a chain.
    public init(codec: Serializer) {
        self.codec = codec
    }

    /// Turns an object into the bytes stored for `(collection, key)`.
    public func serialize(_ object: any Sendable, collection: String, key: String) throws -> Data {
        try codec.encode(object)
    }

    /// Turns stored bytes back into an object; never modifies the stored row.
    public func deserialize(_ data: Data, collection: String, key: String) throws -> any Sendable {
        try codec.decode(data)
    }
}
