/// Handlers that take one value describing the row — the form to write new handlers in.
///
/// ```swift
/// let byTitle = SecondaryIndexHandler.object(Note.self) { row, values in
///     values["title"] = row.object.title
/// }
/// ```
///
/// The row's type follows the handler's kind: a ``KeyRow`` has no object, an ``ObjectRow`` no
/// metadata, so a handler cannot read what its kind does not make it re-run for. Typed forms
/// decode the row as the named type whatever cache or connection it came from (see
/// ``LazyValue/value(as:)``); rows holding something else get no entry.
extension RowHandler {
    /// A handler that derives values from the collection and key; runs on insert only.
    public static func key(_ body: @escaping @Sendable (_ row: KeyRow, _ values: inout Values) throws -> Void)
        -> RowHandler
    {
        RowHandler(kind: .key) { tx, values, ck, _, _ in
            try body(KeyRow(collection: ck.collection, key: ck.key, transaction: tx), &values)
        }
    }

    /// A handler that derives values from the object, whatever its type.
    public static func object(
        _ body: @escaping @Sendable (_ row: ObjectRow<any Sendable>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        object(reading: { try $0.value() }, body)
    }

    /// A handler that derives values from objects of type `T`; rows holding anything else get no entry.
    public static func object<T>(
        _ type: T.Type, _ body: @escaping @Sendable (_ row: ObjectRow<T>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        object(reading: { try $0.value(as: T.self) }, body)
    }

    /// A handler that derives values from the metadata, whatever its type (nil when the row has none).
    public static func metadata(
        _ body: @escaping @Sendable (_ row: MetadataRow<(any Sendable)?>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        // Every row gets a call: `.some(nil)` is a row without metadata.
        metadata(reading: { .some(try $0.value()) }, body)
    }

    /// A handler that derives values from metadata of type `T`; rows whose metadata is absent or
    /// of another type get no entry.
    public static func metadata<T>(
        _ type: T.Type, _ body: @escaping @Sendable (_ row: MetadataRow<T>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        metadata(reading: { try $0.value(as: T.self) }, body)
    }

    /// An object handler reading the object with `read`; rows it gives nil for get no entry.
    private static func object<T>(
        reading read: @escaping @Sendable (LazyValue) throws -> T?,
        _ body: @escaping @Sendable (_ row: ObjectRow<T>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        RowHandler(kind: .object) { tx, values, ck, object, _ in
            guard let object = try read(object) else { return }
            try body(ObjectRow(collection: ck.collection, key: ck.key, object: object, transaction: tx), &values)
        }
    }

    /// A metadata handler reading the metadata with `read`; rows it gives nil for get no entry.
    private static func metadata<T>(
        reading read: @escaping @Sendable (LazyValue) throws -> T?,
        _ body: @escaping @Sendable (_ row: MetadataRow<T>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        RowHandler(kind: .metadata) { tx, values, ck, _, metadata in
            guard let metadata = try read(metadata) else { return }
            try body(MetadataRow(collection: ck.collection, key: ck.key, metadata: metadata, transaction: tx), &values)
        }
    }

    /// A handler that derives values from the object and the metadata, whatever their types.
    public static func row(
        _ body: @escaping @Sendable (_ row: WholeRow<any Sendable, any Sendable>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        row(objectAs: { try $0.value() }, metadataAs: { try $0.value() }, body)
    }

    /// A handler that derives values from objects of type `T` and their metadata, whatever its
    /// type; rows holding another object type get no entry.
    public static func row<T>(
        _ type: T.Type,
        _ body: @escaping @Sendable (_ row: WholeRow<T, any Sendable>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        row(objectAs: { try $0.value(as: T.self) }, metadataAs: { try $0.value() }, body)
    }

    /// A handler that derives values from objects of type `T` and metadata of type `M`; rows
    /// holding another object type get no entry, and metadata of another type reads as nil.
    public static func row<T, M>(
        _ objectType: T.Type, _ metadataType: M.Type,
        _ body: @escaping @Sendable (_ row: WholeRow<T, M>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        row(objectAs: { try $0.value(as: T.self) }, metadataAs: { try $0.value(as: M.self) }, body)
    }

    private static func row<T, M>(
        objectAs object: @escaping @Sendable (LazyValue) throws -> T?,
        metadataAs metadata: @escaping @Sendable (LazyValue) throws -> M?,
        _ body: @escaping @Sendable (_ row: WholeRow<T, M>, _ values: inout Values) throws -> Void
    ) -> RowHandler {
        RowHandler(kind: .row) { tx, values, ck, lazyObject, lazyMetadata in
            guard let value = try object(lazyObject) else { return }
            let row = WholeRow(
                collection: ck.collection, key: ck.key, object: value, metadata: try metadata(lazyMetadata),
                transaction: tx)
            try body(row, &values)
        }
    }

    /// Runs the handler on a row built by hand, as its extension would, starting from `empty`:
    /// for testing a handler without registering it.
    ///
    /// - Parameters:
    ///   - collection: The row's collection.
    ///   - key: The row's key.
    ///   - object: The row's object, as the collection's codec would return it.
    ///   - metadata: The row's metadata, or nil.
    ///   - transaction: A transaction of the database the handler would read.
    ///   - empty: The values before the handler runs (`[:]` for the built-in extensions).
    /// - Returns: What the handler derived; `empty` when it skipped the row.
    public func values(
        collection: String, key: String, object: any Sendable, metadata: (any Sendable)?,
        in transaction: ReadTransaction, startingWith empty: Values
    ) throws -> Values {
        let row = ExtensionRow(
            collectionKey: CollectionKey(collection: collection, key: key), rowid: 0, object: LazyValue(object),
            metadata: LazyValue(metadata))
        var values = empty
        try fill(&values, for: row, in: transaction)
        return values
    }
}
