/// The closure that decides which of a parent view's rows a ``FilteredView`` keeps (YapDatabase's
/// `YapDatabaseViewFiltering`): true keeps the row, in its parent's group and order.
///
/// Like a ``RowHandler``, it says which part of a row it reads, and a row is filtered again only
/// when that part changed:
///
/// ```swift
/// let unread = ViewFiltering.metadata(MessageInfo.self) { group, row in !row.metadata.read }
/// ```
///
/// A typed filter leaves out the rows that do not hold a value of its type.
public struct ViewFiltering: Sendable {
    /// Which part of a row the closure reads.
    public let kind: ViewGrouping.Kind
    let keeps: @Sendable (_ transaction: ReadTransaction, _ group: String, _ row: ExtensionRow) throws -> Bool

    /// Filters rows by collection and key.
    public static func key(
        _ body: @escaping @Sendable (_ group: String, _ row: KeyRow) throws -> Bool
    ) -> ViewFiltering {
        ViewFiltering(kind: .key) { tx, group, row in
            try body(group, KeyRow(collection: row.collection, key: row.key, transaction: tx))
        }
    }

    /// Filters rows by their objects of type `T`; rows holding anything else are left out.
    public static func object<T>(
        _ type: T.Type, _ body: @escaping @Sendable (_ group: String, _ row: ObjectRow<T>) throws -> Bool
    ) -> ViewFiltering {
        ViewFiltering(kind: .object) { tx, group, row in
            guard let object = try row.object.value(as: T.self) else { return false }
            return try body(group, ObjectRow(collection: row.collection, key: row.key, object: object, transaction: tx))
        }
    }

    /// Filters rows by their metadata of type `T`; rows without such metadata are left out.
    public static func metadata<T>(
        _ type: T.Type, _ body: @escaping @Sendable (_ group: String, _ row: MetadataRow<T>) throws -> Bool
    ) -> ViewFiltering {
        ViewFiltering(kind: .metadata) { tx, group, row in
            guard let metadata = try row.metadata.value(as: T.self) else { return false }
            return try body(
                group, MetadataRow(collection: row.collection, key: row.key, metadata: metadata, transaction: tx))
        }
    }

    /// Filters rows by objects of type `T` and metadata of type `M` (nil when absent or of
    /// another type); rows whose object is not a `T` are left out.
    public static func row<T, M>(
        _ objectType: T.Type, _ metadataType: M.Type,
        _ body: @escaping @Sendable (_ group: String, _ row: WholeRow<T, M>) throws -> Bool
    ) -> ViewFiltering {
        ViewFiltering(kind: .row) { tx, group, row in
            guard let object = try row.object.value(as: T.self) else { return false }
            return try body(
                group,
                WholeRow(
                    collection: row.collection, key: row.key, object: object,
                    metadata: try row.metadata.value(as: M.self), transaction: tx))
        }
    }

    /// Whether a change to `parts` of a row can change what the closure answers.
    func runs(onChangeOf parts: ViewChangedParts) -> Bool {
        switch kind {
        case .key: false
        case .object: parts.contains(.object)
        case .metadata: parts.contains(.metadata)
        case .row: !parts.isDisjoint(with: [.object, .metadata])
        }
    }
}
