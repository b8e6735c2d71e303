/// A value that is deserialized only when asked for (YapDatabase's proxy object).
///
/// Extension hooks receive rows whose object or metadata may not be at hand (a touch, a
/// metadata-only replace); reading ``value()`` loads it then. Valid only inside the
/// transaction that produced it.
public final class LazyValue {
    private var loaded: (any Sendable)??
    private let loader: () throws -> (any Sendable)?

    /// A value at hand already.
    public init(_ value: (any Sendable)?) {
        loaded = .some(value)
        loader = { value }
    }

    init(loader: @escaping () throws -> (any Sendable)?) {
        self.loader = loader
    }

    /// Whether the value has been deserialized already.
    public var isLoaded: Bool { loaded != nil }

    /// The value, deserializing it on first use.
    /// - Throws: ``DatabaseError`` when the stored bytes do not decode.
    public func value() throws -> (any Sendable)? {
        if let loaded { return loaded }
        let value = try loader()
        loaded = .some(value)
        return value
    }

    /// The value as `T`, or nil when absent or of another type.
    ///
    /// In a collection without a registered codec the value is an ``EncodedValue`` (whether it
    /// came from the writer, a cache or the disk); a `Decodable` `T` is decoded from it, so a
    /// typed reader sees the same row whatever its origin. Bytes that do not decode as `T` are a
    /// value of another type: nil.
    /// - Throws: ``DatabaseError`` when the stored bytes do not decode.
    public func value<T>(as type: T.Type) throws -> T? {
        guard let value = try value() else { return nil }
        if let typed = value as? T { return typed }
        guard let encoded = value as? EncodedValue, let decodable = T.self as? any Decodable.Type else { return nil }
        return (try? encoded.decode(as: decodable)) as? T
    }
}

@available(*, unavailable, message: "valid only inside the transaction that produced it")
extension LazyValue: Sendable {}

/// One row as an extension hook sees it: where it lives, and its values, decoded on demand.
///
/// Valid only inside the hook it was passed to.
public struct ExtensionRow {
    /// The row's collection and key.
    public let collectionKey: CollectionKey
    /// The row's rowid in `database2` (0 in ``ExtensionTransaction/willInsert(_:)``).
    public let rowid: Int64
    /// The row's object.
    public let object: LazyValue
    /// The row's metadata.
    public let metadata: LazyValue

    /// The row's collection.
    public var collection: String { collectionKey.collection }
    /// The row's key.
    public var key: String { collectionKey.key }

    /// Describes one row.
    public init(collectionKey: CollectionKey, rowid: Int64, object: LazyValue, metadata: LazyValue) {
        self.collectionKey = collectionKey
        self.rowid = rowid
        self.object = object
        self.metadata = metadata
    }
}

@available(*, unavailable, message: "valid only inside the hook it was passed to")
extension ExtensionRow: Sendable {}
