import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Vacuum on encrypted files, and the pragmas a connection reports.
@Suite struct VacuumTests {
    private func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
    }

    @Test(arguments: TestKeyKind.allCases)
    func vacuumShrinksAnEncryptedFileAndKeepsItEncrypted(kind: TestKeyKind) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = kind.makeOptions()
        let canary = "CANARY-\(UUID().uuidString)"
        do {
            let db = try Database(url: url, options: options)
            let conn = try db.newConnection()
            let filler = String(repeating: "\(canary) ", count: 30)
            try conn.readWrite { tx in
                for index in 0..<1500 {
                    try tx.setObject(
                        "\(index) \(filler)", forKey: "k\(index)", inCollection: "bulk", withMetadata: index)
                }
            }
            try db.checkpoint(truncate: true)
            let full = fileSize(url)
            try conn.readWrite { tx in
                try tx.removeObjects(
                    forKeys: (0..<1500).filter { !$0.isMultiple(of: 20) }.map { "k\($0)" }, inCollection: "bulk")
            }
            try db.checkpoint(truncate: true)
            let afterDelete = fileSize(url)
            try conn.vacuum()
            try db.checkpoint(truncate: true)
            let afterVacuum = fileSize(url)
            #expect(afterVacuum < full)
            #expect(afterVacuum <= afterDelete)
            #expect(try conn.pragmaAutoVacuum() == "FULL")
            // Data intact, on this connection and on a fresh one.
            for reader in [conn, try db.newConnection()] {
                try reader.read { tx throws in
                    #expect(try tx.numberOfKeys(inCollection: "bulk") == 75)
                    #expect(try tx.object(forKey: "k20", inCollection: "bulk", as: String.self) == "20 \(filler)")
                    #expect(try tx.metadata(forKey: "k1480", inCollection: "bulk", as: Int.self) == 1480)
                    #expect(try !tx.hasObject(forKey: "k21", inCollection: "bulk"))
                }
            }
            // Writing after a vacuum works and keeps the snapshot sequence.
            let before = db.snapshot
            try conn.readWrite { tx in try tx.setObject("after", forKey: "after", inCollection: "bulk") }
            #expect(db.snapshot == before + 1)
            #expect(!TestSupport.file(url, contains: Data(canary.utf8)))
            #expect(!TestSupport.file(db.walURL, contains: Data(canary.utf8)))
        }
        try TestSupport.waitUntilClosed(url)
        #expect(!TestSupport.file(url, contains: Data(canary.utf8)))
        #expect(!TestSupport.bytes(of: url).starts(with: Data("SQLite format 3".utf8)))
        let db = try TestSupport.open(url, options: options)
        #expect(try db.newConnection().read { tx in try tx.numberOfKeys(inCollection: "bulk") } == 76)
    }

    @Test func vacuumTurnsOnAutoVacuumForOlderFiles() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("legacy.sqlite")
        let key = TestSupport.randomKey()
        // A YapDatabase-style file written without auto_vacuum, the way SQLCipher's defaults make it.
        do {
            let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096, create: true)
            try raw.execute(
                """
                PRAGMA auto_vacuum = NONE;
                PRAGMA journal_mode = WAL;
                CREATE TABLE "yap2" ("extension" CHAR NOT NULL, "key" CHAR NOT NULL, "data" BLOB,
                    PRIMARY KEY ("extension", "key"));
                CREATE TABLE "database2" ("rowid" INTEGER PRIMARY KEY, "collection" CHAR NOT NULL,
                    "key" CHAR NOT NULL, "data" BLOB, "metadata" BLOB);
                CREATE UNIQUE INDEX "true_primary_key" ON "database2" ("collection", "key");
                PRAGMA user_version = 3;
                INSERT INTO "yap2" VALUES ('', 'snapshot', 7);
                INSERT INTO "database2" ("collection", "key", "data") VALUES ('c', 'k', CAST('"legacy"' AS BLOB));
                """)
            #expect(try raw.int("PRAGMA auto_vacuum") == 0)
        }
        var options = DatabaseOptions()
        options.key = .raw(key)
        let db = try TestSupport.open(url, options: options)
        #expect(db.snapshot == 7)
        let conn = try db.newConnection()
        #expect(try conn.pragmaAutoVacuum() == "NONE")
        #expect(try conn.read { tx in try tx.object(forKey: "k", inCollection: "c", as: String.self) } == "legacy")
        try conn.vacuum()
        #expect(try conn.pragmaAutoVacuum() == "FULL")
        #expect(try conn.read { tx in try tx.object(forKey: "k", inCollection: "c", as: String.self) } == "legacy")
    }

    @Test func vacuumWhileALongLivedReaderHoldsASnapshot() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx in
            for index in 0..<200 { try tx.setObject(index, forKey: "k\(index)", inCollection: nil) }
        }
        _ = try reader.beginLongLivedReadTransaction()
        try writer.readWrite { tx in try tx.removeAllObjects(inCollection: nil) }
        let outcome = TestSupport.runBounded { try writer.vacuum() }
        #expect(outcome != nil)
        #expect(throws: Never.self) { try outcome?.get() }
        // The long-lived reader still sees its snapshot; after the next step it sees the vacuumed file.
        #expect(try reader.read { tx in try tx.numberOfKeysInAllCollections() } == 200)
        _ = try reader.beginLongLivedReadTransaction()
        #expect(try reader.read { tx in try tx.numberOfKeysInAllCollections() } == 0)
    }

    @Test func pragmaReadBacks() throws {
        let defaults = try TestDatabase()
        let conn = try defaults.connection()
        #expect(try conn.pragmaSynchronous() == "NORMAL")
        #expect(try conn.pragmaPageSize() == 4096)
        #expect(try conn.pragmaMMapSize() == 0)
        #expect(try conn.pragmaAutoVacuum() == "FULL")
        #expect(defaults.database.pageSize == 4096)

        let tuned = try TestDatabase(.passphrase) { options in
            options.synchronous = .full
            options.cipher.pageSize = 1024
            options.mmapSize = 1 << 20
            options.pageCacheKiB = 512
        }
        let tunedConn = try tuned.connection()
        #expect(try tunedConn.pragmaSynchronous() == "FULL")
        #expect(try tunedConn.pragmaPageSize() == 1024)
        #expect(try tunedConn.pragmaMMapSize() == 1 << 20)
        #expect(try tunedConn.read { tx in try tx.core.sqlite.scalarInt("PRAGMA cache_size") } == -512)
        #expect(tuned.database.pageSize == 1024)

        let off = try TestDatabase { $0.synchronous = .off }
        #expect(try off.connection().pragmaSynchronous() == "OFF")

        // Pragmas may be read inside a transaction of the same connection.
        try conn.read { _ throws in
            #expect(try conn.pragmaPageSize() == 4096)
        }
    }

    @Test func walIsCheckpointedAfterCommits() throws {
        let test = try TestDatabase { $0.walTruncationThreshold = 64 * 1024 }
        let conn = try test.connection()
        let value = String(repeating: "x", count: 2000)
        for round in 0..<60 {
            try conn.readWrite { tx in try tx.setObject(value, forKey: "k\(round)", inCollection: nil) }
        }
        // Coffer checkpoints in the background: the WAL does not grow without bound.
        let walURL = test.database.walURL
        #expect(TestSupport.wait { fileSize(walURL) < 1024 * 1024 })
        try test.database.checkpoint(truncate: true)
        #expect(fileSize(walURL) == 0)
        #expect(try conn.read { tx in try tx.numberOfKeysInAllCollections() } == 60)
    }
}
