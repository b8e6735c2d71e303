import Foundation

/// Names one row of the database: a key inside a collection.
///
/// A `nil` collection in YapDatabase is stored as the empty string; Coffer uses `""` directly.
///
/// Two pairs are equal when their UTF-8 bytes are, as SQLite compares them — not by Swift's
/// `String` equality, which calls canonically equivalent spellings ("é" as one scalar, or "e"
/// with a combining accent) equal although the database stores them as two rows. Ordering is by
/// bytes too, SQLite's `BINARY` collation.
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

    /// Whether both pairs name the same row: the same bytes of key and collection.
    public static func == (lhs: CollectionKey, rhs: CollectionKey) -> Bool {
        sameBytes(lhs.key, rhs.key) && sameBytes(lhs.collection, rhs.collection)
    }

    /// Orders by collection, then by key, comparing UTF-8 bytes.
    public static func < (lhs: CollectionKey, rhs: CollectionKey) -> Bool {
        if sameBytes(lhs.collection, rhs.collection) { return lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8) }
        return lhs.collection.utf8.lexicographicallyPrecedes(rhs.collection.utf8)
    }

    /// Whether two strings have the same UTF-8 bytes (a length check, then one `memcmp`).
    @inline(__always)
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        let count = lhs.utf8.count
        guard count == rhs.utf8.count else { return false }
        guard count > 0 else { return true }
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return false }
                return memcmp(left, right, count) == 0
            }
        }
    }

    /// `collection/key`, for diagnostics.
    public var description: String { "\(collection)/\(key)" }
}
