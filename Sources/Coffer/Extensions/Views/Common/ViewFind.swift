public import Foundation

/// Where a row stands relative to the range a ``ViewTransaction/findRange(inGroup:using:)``
/// looks for (YapDatabase's `YapDatabaseViewFind`): `orderedAscending` when the row comes before
/// the range, `orderedSame` inside it, `orderedDescending` after it.
///
/// It must agree with the view's sorting: the rows of a group, in order, answer ascending, then
/// same, then descending, so a binary search finds the range in O(log n) comparisons.
///
/// ```swift
/// let today = ViewFind.metadata(MessageInfo.self) { row in
///     row.metadata.sent < startOfDay ? .orderedAscending
///         : row.metadata.sent < endOfDay ? .orderedSame : .orderedDescending
/// }
/// ```
public struct ViewFind: Sendable {
    /// Which part of a row the closure reads.
    public let kind: ViewGrouping.Kind
    let compare: @Sendable (_ transaction: ReadTransaction, _ row: ExtensionRow) throws -> ComparisonResult

    /// Places rows by collection and key.
    public static func key(_ body: @escaping @Sendable (_ row: KeyRow) throws -> ComparisonResult) -> ViewFind {
        ViewFind(kind: .key) { tx, row in try body(KeyRow(collection: row.collection, key: row.key, transaction: tx)) }
    }

    /// Places rows by their objects of type `T`.
    /// - Note: A row whose object is not a `T` fails the search with `.extensionFailure`.
    public static func object<T>(
        _ type: T.Type, _ body: @escaping @Sendable (_ row: ObjectRow<T>) throws -> ComparisonResult
    ) -> ViewFind {
        ViewFind(kind: .object) { tx, row in
            try body(
                ObjectRow(collection: row.collection, key: row.key, object: try typed(row.object, row), transaction: tx)
            )
        }
    }

    /// Places rows by their metadata of type `T`.
    /// - Note: A row without metadata of type `T` fails the search with `.extensionFailure`.
    public static func metadata<T>(
        _ type: T.Type, _ body: @escaping @Sendable (_ row: MetadataRow<T>) throws -> ComparisonResult
    ) -> ViewFind {
        ViewFind(kind: .metadata) { tx, row in
            try body(
                MetadataRow(
                    collection: row.collection, key: row.key, metadata: try typed(row.metadata, row), transaction: tx))
        }
    }

    /// Places rows by objects of type `T` and metadata of type `M` (nil when absent or of another type).
    public static func row<T, M>(
        _ objectType: T.Type, _ metadataType: M.Type,
        _ body: @escaping @Sendable (_ row: WholeRow<T, M>) throws -> ComparisonResult
    ) -> ViewFind {
        ViewFind(kind: .row) { tx, row in
            try body(
                WholeRow(
                    collection: row.collection, key: row.key, object: try typed(row.object, row),
                    metadata: try row.metadata.value(as: M.self), transaction: tx))
        }
    }

    private static func typed<T>(_ lazy: LazyValue, _ row: ExtensionRow) throws -> T {
        try row.required(lazy, as: T.self, by: "the view search")
    }
}

/// Finding rows by binary search (YapDatabase's `findRangeInGroup:using:`).
extension ViewTransaction {
    /// The indexes of the rows of `group` that `find` places inside its range, or nil when none is.
    /// - Complexity: O(log n) comparisons, each reading a row (through the caches).
    /// - Throws: ``DatabaseError`` from reading, or what `find` throws.
    public func findRange(inGroup group: String, using find: ViewFind) throws -> Range<Int>? {
        let count = try numberOfItems(inGroup: group)
        let lower = try firstIndex(inGroup: group, count: count, using: find) { $0 != .orderedAscending }
        guard lower < count, try place(at: lower, inGroup: group, using: find) == .orderedSame else { return nil }
        let upper = try firstIndex(inGroup: group, count: count, using: find) { $0 == .orderedDescending }
        return lower..<upper
    }

    /// The first row of `group` that `find` places inside its range, with its index; nil when none is.
    /// - Complexity: O(log n) comparisons.
    /// - Throws: as ``findRange(inGroup:using:)``.
    public func findFirstMatch(inGroup group: String, using find: ViewFind) throws -> (
        row: CollectionKey, index: Int
    )? {
        let count = try numberOfItems(inGroup: group)
        let index = try firstIndex(inGroup: group, count: count, using: find) { $0 != .orderedAscending }
        guard index < count, try place(at: index, inGroup: group, using: find) == .orderedSame,
            let key = try key(at: index, inGroup: group)
        else { return nil }
        return (key, index)
    }

    /// The first index whose row's place satisfies `isPast` (`count` when none does).
    private func firstIndex(
        inGroup group: String, count: Int, using find: ViewFind, _ isPast: (ComparisonResult) -> Bool
    ) throws -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if isPast(try place(at: middle, inGroup: group, using: find)) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private func place(at index: Int, inGroup group: String, using find: ViewFind) throws -> ComparisonResult {
        try find.compare(context.transaction(), row(at: index, inGroup: group, reading: find.kind))
    }
}
