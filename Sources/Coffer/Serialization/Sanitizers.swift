/// Runs before an object or metadata is serialized: returns the value to store, or nil to
/// remove the row (for objects) or clear the metadata. Never runs on reads.
public typealias PreSanitizer = @Sendable (_ collection: String, _ key: String, _ object: any Sendable) -> (any Sendable)?

/// Runs after a write and after the extensions' hooks, with the value that was stored.
public typealias PostSanitizer = @Sendable (_ collection: String, _ key: String, _ object: any Sendable) -> Void
