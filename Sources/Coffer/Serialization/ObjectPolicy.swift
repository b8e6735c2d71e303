/// What other connections keep in their caches after a transaction commits a new value.
///
/// Set per collection, separately for objects and metadata. Values are `any Sendable`, so
/// every policy is safe across threads; they differ in memory use and in how much work a
/// sibling connection does on its next read. The writing connection always caches the value
/// it wrote.
public enum ObjectPolicy: Sendable, Hashable {
    /// Siblings drop the changed keys from their caches and decode the stored blob again when
    /// they next read them. The default: no value is shared between connections.
    case containment
    /// Siblings that had the key cached cache the committed value itself, so a read right
    /// after a commit costs no decoding. Use it for immutable values (structs, or classes that
    /// are never changed after being stored).
    case share
    /// Siblings that had the key cached cache their own copy of the committed value: a class
    /// conforming to ``CopyableObject`` is copied with `copy()`; value types are copies already;
    /// any other class behaves as ``containment``.
    case copy
}

/// A reference type whose instances can be copied for sibling connections under the `copy` policy.
public protocol CopyableObject: AnyObject, Sendable {
    /// Returns an independent copy of the object.
    func copy() -> Self
}
