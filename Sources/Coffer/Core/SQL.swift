/// The SQL Coffer's core runs, in one place (YapDatabase's schema, DESIGN.md §2).
enum SQL {
    static let createTables: StaticString = """
        CREATE TABLE IF NOT EXISTS "yap2" ("extension" CHAR NOT NULL, "key" CHAR NOT NULL, "data" BLOB, \
        PRIMARY KEY ("extension", "key"));
        CREATE TABLE IF NOT EXISTS "database2" ("rowid" INTEGER PRIMARY KEY, "collection" CHAR NOT NULL, \
        "key" CHAR NOT NULL, "data" BLOB, "metadata" BLOB);
        CREATE UNIQUE INDEX IF NOT EXISTS "true_primary_key" ON "database2" ("collection", "key");
        """
    static let formatVersion: Int64 = 3

    static let beginRead: StaticString = "BEGIN TRANSACTION"
    static let beginWrite: StaticString = "BEGIN IMMEDIATE TRANSACTION"
    static let commit: StaticString = "COMMIT TRANSACTION"
    static let rollback: StaticString = "ROLLBACK TRANSACTION"

    static let yapGet: StaticString = #"SELECT "data" FROM "yap2" WHERE "extension" = ? AND "key" = ?"#
    static let yapSet: StaticString = #"INSERT OR REPLACE INTO "yap2" ("extension", "key", "data") VALUES (?, ?, ?)"#
    /// The snapshot number's row, updated in place: `INSERT OR REPLACE` would delete and insert,
    /// in a statement journal SQLCipher encrypts page by page.
    static let updateSnapshot: StaticString =
        #"UPDATE OR IGNORE "yap2" SET "data" = ? WHERE "extension" = '' AND "key" = 'snapshot'"#
    /// The snapshot number's row when it is missing (parameters as ``yapSet``).
    static let insertSnapshotIfMissing: StaticString =
        #"INSERT OR IGNORE INTO "yap2" ("extension", "key", "data") VALUES (?1, ?2, ?3)"#
    /// The snapshot number raised to `?3` when it is lower (parameters as ``yapSet``).
    static let raiseSnapshot: StaticString =
        #"UPDATE OR IGNORE "yap2" SET "data" = ?3 WHERE "extension" = ?1 AND "key" = ?2 AND "data" < ?3"#
    /// The snapshot of the last commit that changed rows, written beside the snapshot number
    /// under multi-process support (a commit that only rebuilt memory writes the number alone).
    static let readDataSnapshot: StaticString =
        #"SELECT "data" FROM "yap2" WHERE "extension" = '' AND "key" = 'dataSnapshot'"#
    static let updateDataSnapshot: StaticString =
        #"UPDATE OR IGNORE "yap2" SET "data" = ? WHERE "extension" = '' AND "key" = 'dataSnapshot'"#
    static let dataSnapshotKey = "dataSnapshot"
    /// Both numbers in one statement, so in one SQLite snapshot outside a transaction.
    static let readSnapshots: StaticString = #"""
        SELECT (SELECT "data" FROM "yap2" WHERE "extension" = '' AND "key" = 'snapshot'),
        (SELECT "data" FROM "yap2" WHERE "extension" = '' AND "key" = 'dataSnapshot')
        """#
    /// A read transaction's first read, which pins SQLite's snapshot: the snapshot number, which
    /// multi-process support compares with the process's.
    static let pinRead: StaticString = #"SELECT "data" FROM "yap2" WHERE "extension" = '' AND "key" = 'snapshot'"#
    static let yapRemove: StaticString = #"DELETE FROM "yap2" WHERE "extension" = ? AND "key" = ?"#
    static let yapRemoveExtension: StaticString = #"DELETE FROM "yap2" WHERE "extension" = ?"#
    static let yapExtensionNames: StaticString = #"SELECT DISTINCT "extension" FROM "yap2" WHERE "extension" != ''"#

    static let countCollections: StaticString = #"SELECT COUNT(DISTINCT "collection") FROM "database2""#
    static let countKeysInCollection: StaticString = #"SELECT COUNT(*) FROM "database2" WHERE "collection" = ?"#
    static let countAllKeys: StaticString = #"SELECT COUNT(*) FROM "database2""#
    static let allCollections: StaticString = #"SELECT DISTINCT "collection" FROM "database2""#
    static let collectionsForKey: StaticString = #"SELECT "collection" FROM "database2" WHERE "key" = ?"#

    static let rowidForKey: StaticString = #"SELECT "rowid" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let keyForRowid: StaticString = #"SELECT "collection", "key" FROM "database2" WHERE "rowid" = ?"#
    static let dataForKey: StaticString = #"SELECT "data" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let metadataForKey: StaticString =
        #"SELECT "metadata" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let rowForKey: StaticString =
        #"SELECT "rowid", "data", "metadata" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let rowForRowid: StaticString =
        #"SELECT "collection", "key", "data", "metadata" FROM "database2" WHERE "rowid" = ?"#

    static let highestRowidInCollection: StaticString =
        #"SELECT MAX("rowid") FROM "database2" WHERE "collection" = ?"#
    /// A batch of a collection's rows in rowid order: after a rowid, up to another, at most a count.
    static let rowidsAndKeysInCollection: StaticString =
        #"SELECT "rowid", "key" FROM "database2" WHERE "collection" = ? AND "rowid" > ? AND "rowid" <= ? ORDER BY "rowid" LIMIT ?"#

    /// Ignores a conflict with an existing key (`changes` then says 0) rather than failing.
    static let insertIfAbsent: StaticString =
        #"INSERT OR IGNORE INTO "database2" ("collection", "key", "data", "metadata") VALUES (?, ?, ?, ?)"#
    static let updateAll: StaticString = #"UPDATE "database2" SET "data" = ?, "metadata" = ? WHERE "rowid" = ?"#
    /// Numbered as `insertIfAbsent`'s parameters: collection, key, data, metadata.
    static let updateAllByKey: StaticString =
        #"UPDATE "database2" SET "data" = ?3, "metadata" = ?4 WHERE "collection" = ?1 AND "key" = ?2"#
    static let updateData: StaticString = #"UPDATE "database2" SET "data" = ? WHERE "rowid" = ?"#
    static let updateMetadata: StaticString = #"UPDATE "database2" SET "metadata" = ? WHERE "rowid" = ?"#
    static let deleteRowid: StaticString = #"DELETE FROM "database2" WHERE "rowid" = ?"#
    static let deleteCollection: StaticString = #"DELETE FROM "database2" WHERE "collection" = ?"#
    static let deleteAll: StaticString = #"DELETE FROM "database2""#

    // The enumerations select only what they hand out: reading a column SQLite does not need
    // costs a VDBE step per row.
    static let enumerateKeysInCollection: StaticString = #"SELECT "key" FROM "database2" WHERE "collection" = ?"#
    static let enumerateKeysInAll: StaticString = #"SELECT "collection", "key" FROM "database2""#
    static let enumerateObjectsInCollection: StaticString =
        #"SELECT "key", "data" FROM "database2" WHERE "collection" = ?"#
    static let enumerateObjectsInAll: StaticString = #"SELECT "collection", "key", "data" FROM "database2""#
    static let enumerateMetadataInCollection: StaticString =
        #"SELECT "key", "metadata" FROM "database2" WHERE "collection" = ?"#
    static let enumerateMetadataInAll: StaticString = #"SELECT "collection", "key", "metadata" FROM "database2""#
    static let enumerateRowsInCollection: StaticString =
        #"SELECT "rowid", "key", "data", "metadata" FROM "database2" WHERE "collection" = ?"#
    static let enumerateRowsInAll: StaticString =
        #"SELECT "rowid", "collection", "key", "data", "metadata" FROM "database2""#

    static let snapshotExtension = ""
    static let snapshotKey = "snapshot"
}
