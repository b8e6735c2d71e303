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

    /// Hashes the key's UTF-8 bytes only: equal pairs still hash equally, the same key in two
    /// collections just shares a bucket, and every cache lookup (the hot path of cached reads)
    /// hashes one string instead of two.
    ///
    /// The bytes, not the `String`: equality is byte equality, and `String`'s own hashing first
    /// checks whether the text needs Unicode normalization, a third of a cached read's hashing.
    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = key.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil { Array(key.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
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

    /// Whether two strings have the same UTF-8 bytes.
    ///
    /// A cached read compares one key, so the common cases stay cheap: strings with the same bits
    /// are the same bytes (a string of up to 15 UTF-8 bytes keeps them inline, a longer one's bits
    /// name its storage); strings that `==` tells apart differ; only strings `==` calls equal are
    /// compared byte by byte, in place.
    @inline(__always)
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size,
            unsafeBitCast(lhs, to: (UInt64, UInt64).self) == unsafeBitCast(rhs, to: (UInt64, UInt64).self)
        {
            return true
        }
        guard lhs == rhs else { return false }
        let count = lhs.utf8.count
        guard count == rhs.utf8.count else { return false }
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return true }
                return memcmp(left, right, count) == 0
            }
        }
        return (inPlace ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// `collection/key`, for diagnostics.
    public var description: String { "\(collection)/\(key)" }
}
