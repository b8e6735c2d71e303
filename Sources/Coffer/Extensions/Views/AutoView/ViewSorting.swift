public import Foundation

/// The closure that puts an ``AutoView`` group's rows in order: `orderedAscending` when the left
/// row comes first (YapDatabase's `YapDatabaseViewSorting`).
///
/// Like a ``RowHandler``, it says which part of a row it reads, and a row is sorted again only when
/// that part changed:
///
/// ```swift
/// let byDate = ViewSorting.metadata(MessageInfo.self) { group, left, right in
///     left.metadata.sent < right.metadata.sent ? .orderedAscending
///         : left.metadata.sent > right.metadata.sent ? .orderedDescending : .orderedSame
/// }
/// ```
///
/// Sorting by metadata (small values, often cached) keeps inserts cheap: each insert compares the
/// new row with about log₂(n) rows of its group, and a comparison of objects may decode them.
/// Rows that compare the same keep the order they were inserted in.
public struct ViewSorting: Sendable {
    /// Which part of a row the closure reads.
    public let kind: ViewGrouping.Kind
    /// Orders two rows, decoding what the closure reads of each.
    @usableFromInline let compare:
        @Sendable (_ transaction: ReadTransaction, _ group: String, _ left: ExtensionRow, _ right: ExtensionRow) throws
            ->
            ComparisonResult
    /// Makes the store of decoded rows that one transaction's inserts compare through.
    @usableFromInline let makeKeys: @Sendable (_ transaction: ReadTransaction) -> ViewSortKeys

    // The factories are inlinable so that the caller's module specializes them for its row type:
    // an insert compares about log₂ n times, and unspecialized code looks up the metadata of the
    // generic row types at run time on every comparison and every access to the kept rows.

    /// A sorting that decodes a row as a `Row` with `wrap` and orders two of them with `body`.
    @inlinable init<Row>(
        kind: ViewGrouping.Kind, wrap: @escaping @Sendable (ReadTransaction, ExtensionRow) throws -> Row,
        body: @escaping @Sendable (String, Row, Row) throws -> ComparisonResult
    ) {
        self.kind = kind
        compare = { transaction, group, left, right in
            try body(group, wrap(transaction, left), wrap(transaction, right))
        }
        makeKeys = { transaction in TypedSortKeys(transaction: transaction, wrap: wrap, body: body).erased }
    }

    /// Orders rows by collection and key.
    @inlinable public static func key(
        _ body: @escaping @Sendable (_ group: String, _ left: KeyRow, _ right: KeyRow) throws -> ComparisonResult
    ) -> ViewSorting {
        ViewSorting(
            kind: .key, wrap: { tx, row in KeyRow(collection: row.collection, key: row.key, transaction: tx) },
            body: body)
    }

    /// Orders rows by their objects of type `T`.
    /// - Note: A row whose object is not a `T` fails the write with `.extensionFailure`: group such
    ///   rows out with the grouping.
    @inlinable public static func object<T>(
        _ type: T.Type,
        _ body:
            @escaping @Sendable (_ group: String, _ left: ObjectRow<T>, _ right: ObjectRow<T>) throws ->
            ComparisonResult
    ) -> ViewSorting {
        ViewSorting(
            kind: .object,
            wrap: { tx, row in
                ObjectRow(
                    collection: row.collection, key: row.key, object: try typed(row.object, row) as T, transaction: tx)
            }, body: body)
    }

    /// Orders rows by their metadata of type `T`.
    /// - Note: A row without metadata of type `T` fails the write with `.extensionFailure`.
    @inlinable public static func metadata<T>(
        _ type: T.Type,
        _ body:
            @escaping @Sendable (_ group: String, _ left: MetadataRow<T>, _ right: MetadataRow<T>) throws ->
            ComparisonResult
    ) -> ViewSorting {
        ViewSorting(
            kind: .metadata,
            wrap: { tx, row in
                MetadataRow(
                    collection: row.collection, key: row.key, metadata: try typed(row.metadata, row) as T,
                    transaction: tx)
            }, body: body)
    }

    /// Orders rows by objects of type `T` and metadata of type `M` (nil when absent or of another type).
    @inlinable public static func row<T, M>(
        _ objectType: T.Type, _ metadataType: M.Type,
        _ body:
            @escaping @Sendable (_ group: String, _ left: WholeRow<T, M>, _ right: WholeRow<T, M>) throws ->
            ComparisonResult
    ) -> ViewSorting {
        ViewSorting(
            kind: .row,
            wrap: { tx, row in
                WholeRow(
                    collection: row.collection, key: row.key, object: try typed(row.object, row) as T,
                    metadata: try row.metadata.value(as: M.self), transaction: tx)
            }, body: body)
    }

    /// The value of `lazy` as `T`: cast in the caller's module when it holds a `T` already (the
    /// generic `LazyValue.value(as:)` looks up `Optional<T>`'s metadata at run time), else
    /// decoded or refused by ``ExtensionRow/required(_:as:by:)``.
    @inlinable static func typed<T>(_ lazy: LazyValue, _ row: ExtensionRow) throws -> T {
        if let value = try lazy.value(), let typed = value as? T { return typed }
        return try row.required(lazy, as: T.self, by: "the view's sorting")
    }
}

/// The handler of an ``AutoView``'s grouping: sets `group` to the row's group name, or leaves it
/// nil to keep the row out of the view.
public typealias ViewGrouping = RowHandler<String?>

extension ExtensionRow {
    /// The value of `lazy` (this row's object or metadata) as `T`, or the error naming the row
    /// and `reader`, which needs a `T`.
    @usableFromInline func required<T>(_ lazy: LazyValue, as type: T.Type, by reader: String) throws -> T {
        guard let value = try lazy.value(as: T.self) else {
            throw DatabaseError(
                .extensionFailure, "\(reader) reads a \(T.self), which this row does not hold",
                collection: collection, key: key)
        }
        return value
    }
}
