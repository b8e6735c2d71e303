/// A collection's name together with the types of its objects and metadata, accepted wherever
/// a collection name is, so reads return those types and writes take them.
///
/// ```swift
/// struct Note: Codable, Sendable { var title: String }
/// struct NoteInfo: Codable, Sendable { var pinned: Bool }
///
/// let notes = TypedCollection<Note, NoteInfo>("notes")
/// try database.register(notes)             // JSON, optionally through `stages:`
/// try connection.readWrite { tx in
///     try tx.set(Note(title: "Hello"), forKey: "n1", in: notes, metadata: NoteInfo(pinned: true))
/// }
/// let note = try connection.read { tx in try tx.object(forKey: "n1", in: notes) }   // Note?
/// ```
///
/// A collection whose metadata has no type of its own is a ``CollectionHandle``.
///
/// A handle is a plain value: define it once (a `static let` is usual) and use it from any
/// connection. It does not register anything by itself. Without ``Database/register(_:format:stages:)``
/// the collection keeps the database's default codec, which stores the same JSON, and typed
/// reads decode it; registering makes reads decode straight into `Object`. Either way, when the
/// collection's registered codec stores another type, the first typed read or write throws
/// ``DatabaseError`` `.typeMismatch` naming both types, before any row is touched.
public struct TypedCollection<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The collection's name, as the string-keyed API spells it.
    public let name: String

    /// Creates a handle for the collection called `name`.
    public init(_ name: String) {
        self.name = name
    }
}

extension TypedCollection {
    /// Throws ``DatabaseError`` `.typeMismatch` when a codec of the collection's chains stores
    /// other types than the handle names (a codec that does not say what it stores — the default
    /// automatic one, a hand-made ``Serializer`` — is given the benefit of the doubt).
    func checkCodecs(object objectChain: SerializerChain, metadata metadataChain: SerializerChain) throws {
        if let stored = objectChain.codec.valueType, stored.id != ObjectIdentifier(Object.self) {
            throw mismatch("objects", stored: stored, handle: Object.self)
        }
        if Metadata.self != NoMetadata.self, let stored = metadataChain.codec.valueType,
            stored.id != ObjectIdentifier(Metadata.self)
        {
            throw mismatch("metadata", stored: stored, handle: Metadata.self)
        }
    }

    private func mismatch<T>(_ part: String, stored: ValueType, handle: T.Type) -> DatabaseError {
        DatabaseError(
            .typeMismatch,
            "the collection's registered codec stores \(part) of type \(stored.name), but the handle names"
                + " \(String(reflecting: T.self)); use a handle of the registered type, or replace the codec with"
                + " registerSerializer(_:forCollection:)",
            collection: name)
    }
}

/// A collection of `Object` values whose metadata is not typed (or not used).
///
/// ```swift
/// let notes = CollectionHandle<Note>("notes")
/// try connection.readWrite { tx in try tx.set(Note(title: "Hello"), forKey: "n1", in: notes) }
/// ```
///
/// Metadata of such a collection stays reachable through the string-keyed API
/// (`metadata(forKey:inCollection:as:)`); use a ``TypedCollection`` to type it.
public typealias CollectionHandle<Object: Codable & Sendable> = TypedCollection<Object, NoMetadata>

/// The metadata type of a ``CollectionHandle``: a collection whose metadata is not typed.
///
/// It has no values, so typed metadata can never be written through such a handle.
public enum NoMetadata: Codable, Sendable, Hashable {
    /// Always fails: there is no value to decode.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            NoMetadata.self,
            DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "NoMetadata has no values"))
    }

    /// Never called: there is no value to encode.
    public func encode(to encoder: any Encoder) throws {}
}
