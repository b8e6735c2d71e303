/// Decoded rows by rowid, in two generations of at most `generationLimit` rows each.
///
/// When the newer generation is full it becomes the older one (the older one's rows go), and a
/// row found in the older one moves back to the newer. A bulk insert keeps the rows it compares
/// most often, in bounded memory.
@usableFromInline struct KeptSortRows<Row> {
    @usableFromInline let generationLimit: Int
    @usableFromInline var newer: [Int64: Row] = [:]
    @usableFromInline var older: [Int64: Row] = [:]

    /// An empty store keeping at most twice `generationLimit` rows.
    @inlinable init(generationLimit: Int) {
        self.generationLimit = max(1, generationLimit)
    }

    /// Row `rowid`, kept or else made by `make` and kept.
    @inlinable mutating func row(_ rowid: Int64, make: (Int64) throws -> Row) rethrows -> Row {
        if let row = newer[rowid] { return row }
        if !older.isEmpty, let row = older.removeValue(forKey: rowid) { return keep(row, as: rowid) }
        return keep(try make(rowid), as: rowid)
    }

    /// Keeps `row` as row `rowid`, in place of what was kept for it.
    @inlinable @discardableResult mutating func keep(_ row: Row, as rowid: Int64) -> Row {
        if newer.count >= generationLimit {
            older = newer
            newer = [:]
        }
        newer[rowid] = row
        return row
    }

    /// Forgets row `rowid`.
    @inlinable mutating func forget(_ rowid: Int64) {
        newer[rowid] = nil
        if !older.isEmpty { older[rowid] = nil }
    }
}
