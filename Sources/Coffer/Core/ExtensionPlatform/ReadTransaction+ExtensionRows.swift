import CofferSQLite
import Foundation

/// Row access shared by the extensions that derive data from rows (SecondaryIndex,
/// FullTextSearch): population from every row, and turning matched rowids back into rows.
extension ReadTransaction {
    /// Calls `body` with every row of the allowed collections, decoding only what is asked for.
    /// - Complexity: O(rows in the allowed collections), plus decoding when asked for.
    func enumerateRowsForExtension(
        allowedCollections allowed: AllowList<String>, object wantObject: Bool, metadata wantMetadata: Bool,
        _ body: (_ row: ExtensionRow) throws -> Void
    ) throws {
        func handle(_ stmt: Statement, _ ck: CollectionKey, _ firstValueColumn: Int32) throws {
            let object = wantObject ? try cachedObject(ck, stmt, column: firstValueColumn) : nil
            let metadata = wantMetadata ? try cachedMetadata(ck, stmt, column: firstValueColumn + 1) : nil
            try body(
                ExtensionRow(
                    collectionKey: ck, rowid: stmt.int64(0), object: LazyValue(object), metadata: LazyValue(metadata)))
        }
        if case .only(let collections) = allowed.rule {
            for collection in collections.sorted() {
                try forEachRow(SQL.enumerateRowsInCollection, binding: collection) { stmt, _ in
                    try handle(stmt, CollectionKey(collection: collection, key: stmt.text(1)), 2)
                }
            }
            return
        }
        let everything = allowed.allowsEverything
        try forEachRow(SQL.enumerateRowsInAll) { stmt, _ in
            let ck = CollectionKey(collection: stmt.text(1), key: stmt.text(2))
            guard everything || allowed.isAllowed(ck.collection) else { return }
            try handle(stmt, ck, 3)
        }
    }

    /// Steps `stmt`, whose column 0 holds database2 rowids, and calls `body` with each row that
    /// still exists, decoding object and metadata only when asked (through the caches).
    ///
    /// Changing the database inside `body` without setting `stop` throws
    /// `mutationDuringEnumeration`, as the core enumerations do.
    func forEachMatchedRow(
        _ stmt: Statement, object wantObject: Bool, metadata wantMetadata: Bool,
        _ body: (
            _ stmt: Statement, _ row: CollectionKey, _ object: (any Sendable)?, _ metadata: (any Sendable)?,
            _ stop: inout Bool
        ) throws -> Void
    ) throws {
        try checkActive()
        defer { stmt.reset() }
        let mutations = core.mutationCount
        var stop = false
        while try mapQuerySQLite({ try stmt.step() }) {
            let rowid = stmt.int64(0)
            guard let found = try lookUpRow(rowid, object: wantObject, metadata: wantMetadata) else { continue }
            try body(stmt, found.ck, found.object, found.metadata, &stop)
            if stop { return }
            if core.mutationCount != mutations { throw Self.mutationDuringEnumeration() }
        }
    }

    /// The collection/key of `rowid` and, when asked, its object and metadata; nil when it is gone.
    func lookUpRow(
        _ rowid: Int64, object wantObject: Bool, metadata wantMetadata: Bool
    ) throws -> (ck: CollectionKey, object: (any Sendable)?, metadata: (any Sendable)?)? {
        let sql = wantObject || wantMetadata ? SQL.rowForRowid : SQL.keyForRowid
        return try mapSQLite {
            let lookup = try sqlite.cachedStatement(sql)
            defer { lookup.reset() }
            try lookup.bind(rowid, at: 1)
            guard try lookup.step() else { return nil }
            let ck = CollectionKey(collection: lookup.text(0), key: lookup.text(1))
            let object = wantObject ? try cachedObject(ck, lookup, column: 2) : nil
            let metadata = wantMetadata ? try cachedMetadata(ck, lookup, column: 3) : nil
            return (ck, object, metadata)
        }
    }
}

extension ReadTransaction {
    /// Whether `table` exists in this transaction's snapshot.
    ///
    /// An extension registered while a read transaction was already pinned to an older snapshot
    /// is listed for it, but its tables are not there yet: readers check before querying.
    func snapshotHasTable(_ table: String) throws -> Bool {
        try mapSQLite {
            let stmt = try sqlite.cachedStatement(#"SELECT 1 FROM "sqlite_master" WHERE "name" = ?"#)
            defer { stmt.reset() }
            try stmt.bind(table, at: 1)
            return try stmt.step()
        }
    }
}
