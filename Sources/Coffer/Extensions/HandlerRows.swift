/// The row a ``RowHandler/key(_:)`` handler derives values from: its collection and key.
///
/// A key handler runs once per row, on insert, since a row's key never changes; it is given
/// nothing it could see change.
public struct KeyRow {
    /// The row's collection.
    public let collection: String
    /// The row's key.
    public let key: String
    /// The transaction the handler runs in (the write, or the extension's registration), for
    /// reading other rows; valid only while the handler runs.
    public let transaction: ReadTransaction

    /// Creates a row by hand, for calling a handler in a test.
    public init(collection: String, key: String, transaction: ReadTransaction) {
        self.collection = collection
        self.key = key
        self.transaction = transaction
    }
}

/// The row an object handler (``RowHandler/object(_:)``, ``RowHandler/object(_:_:)``) derives
/// values from: collection, key and the decoded object.
///
/// An object handler runs again when the row's object changes (set, replaced, touched) and not
/// when only its metadata does, so the metadata is deliberately not here.
public struct ObjectRow<Object> {
    /// The row's collection.
    public let collection: String
    /// The row's key.
    public let key: String
    /// The row's object, decoded as `Object` whatever cache or connection the row came from.
    public let object: Object
    /// The transaction the handler runs in; valid only while the handler runs.
    public let transaction: ReadTransaction

    /// Creates a row by hand, for calling a handler in a test.
    public init(collection: String, key: String, object: Object, transaction: ReadTransaction) {
        self.collection = collection
        self.key = key
        self.object = object
        self.transaction = transaction
    }
}

/// The row a metadata handler (``RowHandler/metadata(_:)``, ``RowHandler/metadata(_:_:)``)
/// derives values from: collection, key and the decoded metadata.
///
/// A metadata handler runs again when the row's metadata changes and not when only its object
/// does, so the object is deliberately not here.
public struct MetadataRow<Metadata> {
    /// The row's collection.
    public let collection: String
    /// The row's key.
    public let key: String
    /// The row's metadata: a `Metadata` for a typed handler, `(any Sendable)?` for an untyped one.
    public let metadata: Metadata
    /// The transaction the handler runs in; valid only while the handler runs.
    public let transaction: ReadTransaction

    /// Creates a row by hand, for calling a handler in a test.
    public init(collection: String, key: String, metadata: Metadata, transaction: ReadTransaction) {
        self.collection = collection
        self.key = key
        self.metadata = metadata
        self.transaction = transaction
    }
}

/// The row a whole-row handler (``RowHandler/row(_:)`` and its typed forms) derives values
/// from: collection, key, object and metadata.
///
/// A whole-row handler runs again on every change to the row.
public struct WholeRow<Object, Metadata> {
    /// The row's collection.
    public let collection: String
    /// The row's key.
    public let key: String
    /// The row's object, decoded as `Object`.
    public let object: Object
    /// The row's metadata as `Metadata`; nil when the row has none (or, for a typed handler,
    /// when it is of another type).
    public let metadata: Metadata?
    /// The transaction the handler runs in; valid only while the handler runs.
    public let transaction: ReadTransaction

    /// Creates a row by hand, for calling a handler in a test.
    public init(collection: String, key: String, object: Object, metadata: Metadata?, transaction: ReadTransaction) {
        self.collection = collection
        self.key = key
        self.object = object
        self.metadata = metadata
        self.transaction = transaction
    }
}
