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
    let compare:
        @Sendable (_ transaction: ReadTransaction, _ group: String, _ left: ExtensionRow, _ right: ExtensionRow) throws
            ->
            ComparisonResult

    /// Orders rows by collection and key.
    public static func key(
        _ body: @escaping @Sendable (_ group: String, _ left: KeyRow, _ right: KeyRow) throws -> ComparisonResult
    ) -> ViewSorting {
        ViewSorting(kind: .key) { tx, group, left, right in
            try body(
                group, KeyRow(collection: left.collection, key: left.key, transaction: tx),
                KeyRow(collection: right.collection, key: right.key, transaction: tx))
        }
    }

    /// Orders rows by their objects of type `T`.
    /// - Note: A row whose object is not a `T` fails the write with `.extensionFailure`: group such
    ///   rows out with the grouping.
    public static func object<T>(
        _ type: T.Type,
        _ body:
            @escaping @Sendable (_ group: String, _ left: ObjectRow<T>, _ right: ObjectRow<T>) throws ->
            ComparisonResult
    ) -> ViewSorting {
        ViewSorting(kind: .object) { tx, group, left, right in
            try body(
                group,
                ObjectRow(
                    collection: left.collection, key: left.key, object: try typed(left.object, left), transaction: tx),
                ObjectRow(
                    collection: right.collection, key: right.key, object: try typed(right.object, right),
                    transaction: tx))
        }
    }

    /// Orders rows by their metadata of type `T`.
    /// - Note: A row without metadata of type `T` fails the write with `.extensionFailure`.
    public static func metadata<T>(
        _ type: T.Type,
        _ body:
            @escaping @Sendable (_ group: String, _ left: MetadataRow<T>, _ right: MetadataRow<T>) throws ->
            ComparisonResult
    ) -> ViewSorting {
        ViewSorting(kind: .metadata) { tx, group, left, right in
            try body(
                group,
                MetadataRow(
                    collection: left.collection, key: left.key, metadata: try typed(left.metadata, left),
                    transaction: tx),
                MetadataRow(
                    collection: right.collection, key: right.key, metadata: try typed(right.metadata, right),
                    transaction: tx))
        }
    }

    /// Orders rows by objects of type `T` and metadata of type `M` (nil when absent or of another type).
    public static func row<T, M>(
        _ objectType: T.Type, _ metadataType: M.Type,
        _ body:
            @escaping @Sendable (_ group: String, _ left: WholeRow<T, M>, _ right: WholeRow<T, M>) throws ->
            ComparisonResult
    ) -> ViewSorting {
        ViewSorting(kind: .row) { tx, group, left, right in
            try body(
                group,
                WholeRow(
                    collection: left.collection, key: left.key, object: try typed(left.object, left),
                    metadata: try left.metadata.value(as: M.self), transaction: tx),
                WholeRow(
                    collection: right.collection, key: right.key, object: try typed(right.object, right),
                    metadata: try right.metadata.value(as: M.self), transaction: tx))
        }
    }

    private static func typed<T>(_ lazy: LazyValue, _ row: ExtensionRow) throws -> T {
        try row.required(lazy, as: T.self, by: "the view's sorting")
    }

}

/// The handler of an ``AutoView``'s grouping: sets `group` to the row's group name, or leaves it
/// nil to keep the row out of the view.
public typealias ViewGrouping = RowHandler<String?>

extension ExtensionRow {
    /// The value of `lazy` (this row's object or metadata) as `T`, or the error naming the row
    /// and `reader`, which needs a `T`.
    func required<T>(_ lazy: LazyValue, as type: T.Type, by reader: String) throws -> T {
        guard let value = try lazy.value(as: T.self) else {
            throw DatabaseError(
                .extensionFailure, "\(reader) reads a \(T.self), which this row does not hold",
                collection: collection, key: key)
        }
        return value
    }
}
