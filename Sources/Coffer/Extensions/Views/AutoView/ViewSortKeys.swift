public import Foundation

/// The rows an ``AutoView``'s sorting compared in one write transaction, each decoded once and
/// kept by rowid, so that placing a row reads its neighbours from the database only the first time
/// any insert compares with them.
///
/// A binary search compares the row being placed with about log₂ n rows of its group, and the rows
/// near the middle of a group come up in every insert. A kept row stays right while its values do:
/// the maintainer forgets a row whose values change or that leaves, and the transaction drops the
/// whole store when its sorting changes and when it ends (the kept rows hold the transaction).
///
/// The operations are closures made by ``TypedSortKeys`` in the module that wrote the sorting, so
/// that they, and the binary search in them, are specialized for its row type.
@usableFromInline final class ViewSortKeys {
    /// Where a row goes among the rows of a group (see ``index(of:amongRows:inGroup:rowidAt:load:)``).
    @usableFromInline let index:
        (
            _ row: ExtensionRow, _ count: Int, _ group: String, _ rowidAt: (Int) throws -> Int64,
            _ load: (Int64) throws -> ExtensionRow
        ) throws -> Int
    /// Whether a row sorts between two rows (see ``sorts(_:after:before:inGroup:load:)``).
    @usableFromInline let sortsBetween:
        (
            _ row: ExtensionRow, _ previous: Int64?, _ next: Int64?, _ group: String,
            _ load: (Int64) throws -> ExtensionRow
        ) throws -> Bool
    /// Forgets what was kept of a row, whose values changed or which left the view.
    @usableFromInline let forget: (_ rowid: Int64) -> Void

    /// A store made of these operations.
    @usableFromInline init(
        index:
            @escaping (
                ExtensionRow, Int, String, (Int) throws -> Int64, (Int64) throws -> ExtensionRow
            ) throws -> Int,
        sortsBetween:
            @escaping (ExtensionRow, Int64?, Int64?, String, (Int64) throws -> ExtensionRow) throws -> Bool,
        forget: @escaping (Int64) -> Void
    ) {
        self.index = index
        self.sortsBetween = sortsBetween
        self.forget = forget
    }

    /// The index at which `row` goes among the `count` rows of `group`: after every row that does
    /// not sort after it, so rows that compare the same keep the order they came in.
    ///
    /// `rowidAt` gives the rowid at an index of the group, and `load` reads a row not kept yet.
    /// Rows often arrive in sort order, so the last row is compared first: one comparison places
    /// those. An empty group takes the row without decoding it.
    /// - Throws: what `rowidAt`, `load`, decoding and the sorting throw.
    func index(
        of row: ExtensionRow, amongRows count: Int, inGroup group: String, rowidAt: (Int) throws -> Int64,
        load: (Int64) throws -> ExtensionRow
    ) throws -> Int {
        try index(row, count, group, rowidAt, load)
    }

    /// Whether `row` sorts after row `previous` and before row `next` of `group` (nil: no such
    /// neighbour), ties keeping their order; a row without neighbours is not decoded.
    /// - Throws: what `load`, decoding and the sorting throw.
    func sorts(
        _ row: ExtensionRow, after previous: Int64?, before next: Int64?, inGroup group: String,
        load: (Int64) throws -> ExtensionRow
    ) throws -> Bool {
        try sortsBetween(row, previous, next, group, load)
    }
}

/// The kept rows of a sorting whose closure reads rows as `Row` (a ``MetadataRow``, for example).
@usableFromInline final class TypedSortKeys<Row> {
    @usableFromInline let transaction: ReadTransaction
    @usableFromInline let wrap: (ReadTransaction, ExtensionRow) throws -> Row
    @usableFromInline let body: (String, Row, Row) throws -> ComparisonResult
    @usableFromInline var kept: KeptSortRows<Row>

    /// A store whose rows `wrap` decodes, in `transaction`, and `body` orders, keeping at most
    /// twice `generationLimit` rows (some 30 MB of rows of a small metadata type at the default).
    @inlinable init(
        transaction: ReadTransaction, generationLimit: Int = 1 << 17,
        wrap: @escaping (ReadTransaction, ExtensionRow) throws -> Row,
        body: @escaping (String, Row, Row) throws -> ComparisonResult
    ) {
        self.transaction = transaction
        self.wrap = wrap
        self.body = body
        kept = KeptSortRows(generationLimit: generationLimit)
    }

    /// The store as the maintainer calls it.
    @inlinable var erased: ViewSortKeys {
        ViewSortKeys(
            index: { row, count, group, rowidAt, load in
                try self.index(of: row, amongRows: count, inGroup: group, rowidAt: rowidAt, load: load)
            },
            sortsBetween: { row, previous, next, group, load in
                try self.sorts(row, after: previous, before: next, inGroup: group, load: load)
            },
            forget: { rowid in self.forget(rowid) })
    }

    /// Forgets what was kept of row `rowid`.
    @inlinable func forget(_ rowid: Int64) {
        kept.forget(rowid)
    }

    /// See ``ViewSortKeys/index(of:amongRows:inGroup:rowidAt:load:)``.
    @inlinable func index(
        of row: ExtensionRow, amongRows count: Int, inGroup group: String, rowidAt: (Int) throws -> Int64,
        load: (Int64) throws -> ExtensionRow
    ) throws -> Int {
        guard count > 0 else {
            // Its rowid may be a removed row's, kept under the removed row's values.
            forget(row.rowid)
            return 0
        }
        // Searched with the rows taken out of the object: a local needs no run-time
        // exclusivity check at each of the search's accesses, as a stored property does.
        var kept = takeKept()
        defer { self.kept = kept }
        let placed = kept.keep(try wrap(transaction, row), as: row.rowid)
        func sortsBefore(rowAt index: Int) throws -> Bool {
            let other = try kept.row(try rowidAt(index)) { try wrap(transaction, load($0)) }
            return try body(group, placed, other) == .orderedAscending
        }
        guard try sortsBefore(rowAt: count - 1) else { return count }
        var (low, high) = (0, count - 1)
        while low < high {
            let middle = (low + high) / 2
            if try sortsBefore(rowAt: middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// See ``ViewSortKeys/sorts(_:after:before:inGroup:load:)``.
    @inlinable func sorts(
        _ row: ExtensionRow, after previous: Int64?, before next: Int64?, inGroup group: String,
        load: (Int64) throws -> ExtensionRow
    ) throws -> Bool {
        guard previous != nil || next != nil else {
            forget(row.rowid)
            return true
        }
        var kept = takeKept()
        defer { self.kept = kept }
        let placed = kept.keep(try wrap(transaction, row), as: row.rowid)
        let make = { (rowid: Int64) in try self.wrap(self.transaction, load(rowid)) }
        if let previous, try body(group, kept.row(previous, make: make), placed) == .orderedDescending {
            return false
        }
        if let next, try body(group, placed, kept.row(next, make: make)) == .orderedDescending {
            return false
        }
        return true
    }

    /// The kept rows, left empty in the object so that the caller's copy is the only one (and
    /// changes in place).
    @inlinable func takeKept() -> KeptSortRows<Row> {
        let taken = kept
        kept = KeptSortRows(generationLimit: taken.generationLimit)
        return taken
    }
}
