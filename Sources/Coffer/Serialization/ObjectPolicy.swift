/// What sibling connections cache for a row after another connection commits a change to it.
public enum ObjectPolicy: Sendable, Hashable {
    /// Siblings drop the cached value and deserialize again on demand. Safe for any value (default).
    case containment
    /// Siblings cache the very value the writer stored. Use for immutable values (Swift value types).
    case share
    /// Siblings cache `copy()` of the value when it conforms to ``CopyableObject``; otherwise
    /// this behaves like ``containment``.
    case copy
}

/// A reference type whose instances can be copied for sibling connections under the `copy` policy.
public protocol CopyableObject: AnyObject, Sendable {
    /// Returns an independent copy of the object.
    func copy() -> Self
}
