/// Runs before an object or metadata value is serialized, and may replace it.
///
/// Registered per collection; the core calls it inside the write transaction, before the
/// value reaches the serializer chain and the extensions. Return the value to store — the
/// same one or a replacement — or `nil` to store nothing: for an object that removes the row,
/// for metadata it stores no metadata. Sanitizers never run on reads.
///
/// - Parameters:
///   - collection: The row's collection.
///   - key: The row's key.
///   - object: The value about to be stored.
/// - Returns: The value to store, or `nil`.
public typealias PreSanitizer =
    @Sendable (_ collection: String, _ key: String, _ object: any Sendable) -> (
        any Sendable
    )?

/// Runs after a value has been written and every extension has seen it.
///
/// Registered per collection; the core calls it inside the write transaction once the row
/// and the extension hooks are done, for example to mark the in-memory object as saved. It
/// receives the value actually stored (the pre-sanitizer's result). Sanitizers never run on
/// reads.
///
/// - Parameters:
///   - collection: The row's collection.
///   - key: The row's key.
///   - object: The value that was stored.
public typealias PostSanitizer = @Sendable (_ collection: String, _ key: String, _ object: any Sendable) -> Void
