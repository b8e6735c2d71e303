/// What other connections keep in their caches after a transaction commits a new value.
///
/// Set per collection, separately for objects and metadata. Values are `any Sendable`, so
/// every policy is safe across threads; they differ in memory use and in how much work a
/// sibling connection does on its next read.
public enum ObjectPolicy: Sendable, Hashable {
    /// Siblings drop the changed keys from their caches and decode the stored blob again when
    /// they next read them. The default: no value is shared between connections.
    case containment
    /// Siblings cache the committed value itself, the very instance the writer stored, so a
    /// read right after a commit costs no decoding. Use it for immutable values (structs, or
    /// classes that are never changed after being stored).
    case share
    /// Siblings cache their own copy of the committed value, never the writer's instance.
    /// Value types are copies already; a class instance is copied by passing it through the
    /// collection's serializer chain (encode, then decode), which costs one round trip per
    /// changed key and sibling.
    case copy
}
