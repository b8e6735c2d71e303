/// The SQL Coffer's core runs, in one place (YapDatabase's schema, DESIGN.md §2).
enum SQL {
    static let createTables = """
        CREATE TABLE IF NOT EXISTS "yap2" ("extension" CHAR NOT NULL, "key" CHAR NOT NULL, "data" BLOB, \
        PRIMARY KEY ("extension", "key"));
        CREATE TABLE IF NOT EXISTS "database2" ("rowid" INTEGER PRIMARY KEY, "collection" CHAR NOT NULL, \
        "key" CHAR NOT NULL, "data" BLOB, "metadata" BLOB);
        CREATE UNIQUE INDEX IF NOT EXISTS "true_primary_key" ON "database2" ("collection", "key");
        """
    static let formatVersion: Int64 = 3

    static let beginRead = "BEGIN TRANSACTION"
    static let beginWrite = "BEGIN IMMEDIATE TRANSACTION"
    static let commit = "COMMIT TRANSACTION"
    static let rollback = "ROLLBACK TRANSACTION"

    static let yapGet = #"SELECT "data" FROM "yap2" WHERE "extension" = ? AND "key" = ?"#
    static let yapSet = #"INSERT OR REPLACE INTO "yap2" ("extension", "key", "data") VALUES (?, ?, ?)"#
    static let yapRemove = #"DELETE FROM "yap2" WHERE "extension" = ? AND "key" = ?"#
    static let yapRemoveExtension = #"DELETE FROM "yap2" WHERE "extension" = ?"#
    static let yapExtensionNames = #"SELECT DISTINCT "extension" FROM "yap2" WHERE "extension" != ''"#

    static let countCollections = #"SELECT COUNT(DISTINCT "collection") FROM "database2""#
    static let countKeysInCollection = #"SELECT COUNT(*) FROM "database2" WHERE "collection" = ?"#
    static let countAllKeys = #"SELECT COUNT(*) FROM "database2""#
    static let allCollections = #"SELECT DISTINCT "collection" FROM "database2""#
    static let collectionsForKey = #"SELECT "collection" FROM "database2" WHERE "key" = ?"#

    static let rowidForKey = #"SELECT "rowid" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let keyForRowid = #"SELECT "collection", "key" FROM "database2" WHERE "rowid" = ?"#
    static let dataForKey = #"SELECT "rowid", "data" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let metadataForKey = #"SELECT "rowid", "metadata" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let rowForKey =
        #"SELECT "rowid", "data", "metadata" FROM "database2" WHERE "collection" = ? AND "key" = ?"#
    static let rowForRowid = #"SELECT "collection", "key", "data", "metadata" FROM "database2" WHERE "rowid" = ?"#

    static let insert = #"INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES (?, ?, ?, ?)"#
    static let updateAll = #"UPDATE "database2" SET "data" = ?, "metadata" = ? WHERE "rowid" = ?"#
    static let updateData = #"UPDATE "database2" SET "data" = ? WHERE "rowid" = ?"#
    static let updateMetadata = #"UPDATE "database2" SET "metadata" = ? WHERE "rowid" = ?"#
    static let deleteRowid = #"DELETE FROM "database2" WHERE "rowid" = ?"#
    static let deleteCollection = #"DELETE FROM "database2" WHERE "collection" = ?"#
    static let deleteAll = #"DELETE FROM "database2""#

    static let enumerateKeysInCollection = #"SELECT "rowid", "key" FROM "database2" WHERE "collection" = ?"#
    static let enumerateKeysInAll = #"SELECT "rowid", "collection", "key" FROM "database2""#
    static let enumerateObjectsInCollection =
        #"SELECT "rowid", "key", "data" FROM "database2" WHERE "collection" = ?"#
    static let enumerateObjectsInAll = #"SELECT "rowid", "collection", "key", "data" FROM "database2""#
    static let enumerateMetadataInCollection =
        #"SELECT "rowid", "key", "metadata" FROM "database2" WHERE "collection" = ?"#
    static let enumerateMetadataInAll = #"SELECT "rowid", "collection", "key", "metadata" FROM "database2""#
    static let enumerateRowsInCollection =
        #"SELECT "rowid", "key", "data", "metadata" FROM "database2" WHERE "collection" = ?"#
    static let enumerateRowsInAll = #"SELECT "rowid", "collection", "key", "data", "metadata" FROM "database2""#
    static let rowidsInCollection = #"SELECT "rowid", "key" FROM "database2" WHERE "collection" = ?"#

    static let snapshotExtension = ""
    static let snapshotKey = "snapshot"
}
