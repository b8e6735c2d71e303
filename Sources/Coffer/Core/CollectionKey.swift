/// Names one row of the database: a key inside a collection.
///
/// A `nil` collection in YapDatabase is stored as the empty string; Coffer uses `""` directly.
public struct CollectionKey: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The collection the row belongs to (`""` for the default collection).
    public var collection: String
    /// The row's key inside its collection.
    public var key: String

    /// Creates a collection/key pair.
    public init(collection: String, key: String) {
        self.collection = collection
        self.key = key
    }

    /// Hashes the key only: equal pairs still hash equally, the same key in two collections just
    /// shares a bucket, and every cache lookup (the hot path of cached reads) hashes one string
    /// instead of two.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    /// Orders by collection, then by key.
    public static func < (lhs: CollectionKey, rhs: CollectionKey) -> Bool {
        (lhs.collection, lhs.key) < (rhs.collection, rhs.key)
    }

    /// `collection/key`, for diagnostics.
    public var description: String { "\(collection)/\(key)" }
}
