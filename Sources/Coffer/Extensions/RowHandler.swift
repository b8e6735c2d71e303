/// The closure an extension runs on a row to derive its values (an index entry, searchable text),
/// and which part of the row it reads — YapDatabase's `withKeyBlock` / `withObjectBlock` /
/// `withMetadataBlock` / `withRowBlock`.
///
/// The closure takes one value describing the row and fills `values` (for example a secondary
/// index's column values); leaving them empty means "no entry for this row", and an existing
/// entry is removed. Which part the closure reads decides when it runs again, so a row is only
/// re-derived when its input changed — and the row value holds only that part:
///
/// | handler | row value | runs on |
/// |---|---|---|
/// | ``key(_:)`` | ``KeyRow`` | insert only (the key never changes) |
/// | ``object(_:_:)`` | ``ObjectRow`` | insert, update, object replaced, object touched |
/// | ``metadata(_:_:)`` | ``MetadataRow`` | insert, update, metadata replaced, metadata touched |
/// | ``row(_:_:_:)`` | ``WholeRow`` | every change |
///
/// ```swift
/// let handler = SecondaryIndexHandler.object(Note.self) { row, values in
///     values["title"] = row.object.title
/// }
/// ```
///
/// The positional forms (``byKey(_:)``, ``byObject(_:_:)``, ``byMetadata(_:_:)``, ``byRow(_:)``)
/// are the same handlers with the row spread over five parameters, kept for existing code.
///
/// The closure runs inside the write transaction (or the registration's), on its connection's
/// queue, and may run on any thread; it must not keep the transaction. Throwing from it rolls
/// the whole transaction back (a registration fails and leaves nothing behind).
public struct RowHandler<Values>: Sendable {
    /// Which part of a row the closure reads.
    public enum Kind: Sendable, Hashable {
        /// Collection and key only.
        case key
        /// The object.
        case object
        /// The metadata.
        case metadata
        /// Object and metadata.
        case row
    }

    /// Which part of a row the closure reads.
    public let kind: Kind
    let body:
        @Sendable (
            _ transaction: ReadTransaction, _ values: inout Values, _ row: CollectionKey, _ object: LazyValue,
            _ metadata: LazyValue
        ) throws -> Void

    /// A handler that derives values from the collection and key.
    public static func byKey(
        _ body:
            @escaping @Sendable (
                _ transaction: ReadTransaction, _ values: inout Values, _ collection: String, _ key: String
            ) throws -> Void
    ) -> RowHandler {
        key { row, values in try body(row.transaction, &values, row.collection, row.key) }
    }

    /// A handler that derives values from the object.
    public static func byObject(
        _ body:
            @escaping @Sendable (
                _ transaction: ReadTransaction, _ values: inout Values, _ collection: String, _ key: String,
                _ object: any Sendable
            ) throws -> Void
    ) -> RowHandler {
        object { row, values in try body(row.transaction, &values, row.collection, row.key, row.object) }
    }

    /// A handler that derives values from objects of type `T`; rows holding anything else get no entry.
    ///
    /// In collections without a registered codec a `Decodable` `T` is decoded from the stored
    /// ``EncodedValue`` (see ``LazyValue/value(as:)``), so the handler sees every row, whether the
    /// extension was registered before or after it was written.
    public static func byObject<T>(
        _ type: T.Type,
        _ body:
            @escaping @Sendable (
                _ transaction: ReadTransaction, _ values: inout Values, _ collection: String, _ key: String, _ object: T
            ) throws -> Void
    ) -> RowHandler {
        object(T.self) { row, values in try body(row.transaction, &values, row.collection, row.key, row.object) }
    }

    /// A handler that derives values from the metadata (nil when the row has none).
    public static func byMetadata(
        _ body:
            @escaping @Sendable (
                _ transaction: ReadTransaction, _ values: inout Values, _ collection: String, _ key: String,
                _ metadata: (any Sendable)?
            ) throws -> Void
    ) -> RowHandler {
        metadata { row, values in try body(row.transaction, &values, row.collection, row.key, row.metadata) }
    }

    /// A handler that derives values from metadata of type `T`; rows whose metadata is absent or
    /// of another type get no entry.
    ///
    /// `Decodable` types are decoded as ``byObject(_:_:)`` does.
    public static func byMetadata<T>(
        _ type: T.Type,
        _ body:
            @escaping @Sendable (
                _ transaction: ReadTransaction, _ values: inout Values, _ collection: String, _ key: String,
                _ metadata: T
            ) throws -> Void
    ) -> RowHandler {
        metadata(T.self) { row, values in
            try body(row.transaction, &values, row.collection, row.key, row.metadata)
        }
    }

    /// A handler that derives values from the object and the metadata.
    public static func byRow(
        _ body:
            @escaping @Sendable (
                _ transaction: ReadTransaction, _ values: inout Values, _ collection: String, _ key: String,
                _ object: any Sendable, _ metadata: (any Sendable)?
            ) throws -> Void
    ) -> RowHandler {
        row { row, values in
            try body(row.transaction, &values, row.collection, row.key, row.object, row.metadata)
        }
    }

    /// Whether the closure reads the object (so population must load it).
    var readsObject: Bool { kind.readsObject }
    /// Whether the closure reads the metadata.
    var readsMetadata: Bool { kind.readsMetadata }

    /// Whether a change of this kind can change what the closure derives.
    func runs(on change: RowHandlerChange) -> Bool {
        Self.runs(kind, on: change)
    }

    /// Whether a change of this kind can change what a closure reading `kind` derives.
    static func runs(_ kind: Kind, on change: RowHandlerChange) -> Bool {
        switch (kind, change) {
        case (_, .insert): true
        case (.key, _): false
        case (.row, _): true
        case (_, .update): true
        case (.object, .replaceObject), (.metadata, .replaceMetadata): true
        case (.object, .touch(let object, _)): object
        case (.metadata, .touch(_, let metadata)): metadata
        default: false
        }
    }

    /// Runs the closure on `row`, filling `values` (empty, but perhaps with storage reserved).
    func fill(_ values: inout Values, for row: ExtensionRow, in transaction: ReadTransaction) throws {
        try body(transaction, &values, row.collectionKey, row.object, row.metadata)
    }
}

/// What happened to a row, for deciding whether a ``RowHandler`` runs again.
enum RowHandlerChange {
    case insert
    case update
    case replaceObject
    case replaceMetadata
    case touch(object: Bool, metadata: Bool)
}

extension RowHandler.Kind {
    /// Whether a closure of this kind reads the object (so it must be loaded for it).
    var readsObject: Bool { self == .object || self == .row }
    /// Whether a closure of this kind reads the metadata.
    var readsMetadata: Bool { self == .metadata || self == .row }
}
