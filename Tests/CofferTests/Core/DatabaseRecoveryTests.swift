import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Files that are damaged, from older formats or newer ones, and key candidates.
@Suite struct DatabaseRecoveryTests {
    private func makeDatabase(_ dir: TemporaryDirectory, options: DatabaseOptions, name: String = "db.sqlite") throws
        -> URL
    {
        let url = dir.file(name)
        do {
            let db = try Database(url: url, options: options)
            try db.newConnection().readWrite { tx in try tx.setObject("value", forKey: "k", inCollection: nil) }
        }
        try TestSupport.waitUntilClosed(url)
        return url
    }

    @Test func corruptActionNeverAppliesToAWrongKey() throws {
        for action in [DatabaseOptions.CorruptAction.rename, .delete] {
            let dir = TemporaryDirectory()
            let url = try makeDatabase(dir, options: TestSupport.rawKeyOptions())
            let before = TestSupport.bytes(of: url)
            var options = TestSupport.rawKeyOptions()
            options.corruptAction = action
            let error = try #require(throws: DatabaseError.self) { try Database(url: url, options: options) }
            #expect(error.code == .wrongKey)
            #expect(TestSupport.bytes(of: url) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["db.sqlite"])
            // Nor to a plaintext database opened with a key.
            let plain = try makeDatabase(dir, options: DatabaseOptions(), name: "plain.sqlite")
            let plainBefore = TestSupport.bytes(of: plain)
            let plainError = try #require(throws: DatabaseError.self) { try Database(url: plain, options: options) }
            #expect(plainError.code == .notEncrypted)
            #expect(TestSupport.bytes(of: plain) == plainBefore)
        }
    }

    @Test func corruptActionRenameMovesANonDatabaseAside() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let junk = Data(String(repeating: "not a database\n", count: 50).utf8)
        try junk.write(to: url)
        var options = TestSupport.rawKeyOptions()
        options.corruptAction = .rename
        let db = try Database(url: url, options: options)
        try db.newConnection().readWrite { tx in try tx.setObject("fresh", forKey: "k", inCollection: nil) }
        let moved = dir.file("db.sqlite.0.corrupt")
        #expect(TestSupport.bytes(of: moved) == junk)
        #expect(try db.newConnection().read { tx in try tx.numberOfKeysInAllCollections() } == 1)
    }

    @Test func corruptActionDeleteReplacesANonDatabase() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        try Data(String(repeating: "junk ", count: 100).utf8).write(to: url)
        var options = TestSupport.rawKeyOptions()
        options.corruptAction = .delete
        let db = try Database(url: url, options: options)
        #expect(db.snapshot == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path).allSatisfy { !$0.hasSuffix(".corrupt") })
        #expect(!TestSupport.bytes(of: url).starts(with: Data("junk".utf8)))
    }

    @Test func keyCandidatesAreTriedInOrder() throws {
        let dir = TemporaryDirectory()
        let rightKey = TestSupport.randomKey()
        let url = try makeDatabase(dir, options: TestSupport.rawKeyOptions(rightKey))
        let calls = Locked(0)
        var options = DatabaseOptions()
        options.key = .candidates {
            calls.withLock { $0 += 1 }
            return [.raw(TestSupport.randomKey()), .passphrase("not it"), .raw(rightKey)]
        }
        options.cipher.kdfIterations = TestKeyKind.testKDFIterations
        let db = try Database(url: url, options: options)
        #expect(calls.value == 1)
        // Later connections use the candidate that worked.
        let value = try db.newConnection().read { tx in try tx.object(forKey: "k", inCollection: nil, as: String.self) }
        #expect(value == "value")
    }

    @Test func keyCandidatesThatAllFail() throws {
        let dir = TemporaryDirectory()
        let url = try makeDatabase(dir, options: TestSupport.rawKeyOptions())
        let before = TestSupport.bytes(of: url)
        struct ProviderFailure: Error, CustomStringConvertible {
            var description: String { "SECRET-FROM-PROVIDER" }
        }
        let cases: [(DatabaseKey, DatabaseError.Code)] = [
            (.candidates { [.raw(TestSupport.randomKey()), .raw(TestSupport.randomKey())] }, .wrongKey),
            (.candidates { [] }, .invalidKey),
            (.candidates { throw ProviderFailure() }, .invalidKey),
            (.candidates { [.raw(Data(count: 3))] }, .invalidKey),
        ]
        for (key, code) in cases {
            var options = DatabaseOptions()
            options.key = key
            let error = try #require(throws: DatabaseError.self) { try Database(url: url, options: options) }
            #expect(error.code == code)
            #expect(!String(describing: error).contains("SECRET-FROM-PROVIDER"))
            #expect(TestSupport.bytes(of: url) == before)
        }
    }

    @Test func newerFormatVersionIsRefusedAndUntouched() throws {
        let dir = TemporaryDirectory()
        let key = TestSupport.randomKey()
        let url = try makeDatabase(dir, options: TestSupport.rawKeyOptions(key))
        do {
            let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096)
            try raw.execute("PRAGMA user_version = 4")
        }
        let before = TestSupport.bytes(of: url)
        let error = try #require(throws: DatabaseError.self) {
            try Database(url: url, options: TestSupport.rawKeyOptions(key))
        }
        #expect(error.code == .unsupportedFormat)
        #expect(TestSupport.bytes(of: url) == before)
    }

    @Test func olderYapDatabaseSchemaIsUpgraded() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("v2.sqlite")
        let key = TestSupport.randomKey()
        do {
            let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096, create: true)
            try raw.execute(
                """
                PRAGMA journal_mode = WAL;
                CREATE TABLE "database" ("collection" CHAR NOT NULL, "key" CHAR NOT NULL, "data" BLOB,
                    "metadata" BLOB, PRIMARY KEY ("collection", "key"));
                INSERT INTO "database" VALUES ('c', 'a', CAST('"old-a"' AS BLOB), CAST('1' AS BLOB));
                INSERT INTO "database" VALUES ('', 'b', CAST('"old-b"' AS BLOB), NULL);
                PRAGMA user_version = 2;
                """)
        }
        var options = DatabaseOptions()
        options.key = .raw(key)
        do {
            let db = try TestSupport.open(url, options: options)
            try db.newConnection().read { tx throws in
                #expect(try tx.object(forKey: "a", inCollection: "c", as: String.self) == "old-a")
                #expect(try tx.metadata(forKey: "a", inCollection: "c", as: Int.self) == 1)
                #expect(try tx.object(forKey: "b", inCollection: nil, as: String.self) == "old-b")
            }
        }
        try TestSupport.waitUntilClosed(url)
        let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096)
        #expect(try raw.int("PRAGMA user_version") == 3)
        #expect(try raw.int(#"SELECT count(*) FROM sqlite_master WHERE name = 'database'"#) == 0)
        #expect(try raw.int(#"SELECT count(*) FROM "database2""#) == 2)
    }

    @Test func extensionNamesRecordedInTheFileAreReported() throws {
        let dir = TemporaryDirectory()
        let key = TestSupport.randomKey()
        let url = try makeDatabase(dir, options: TestSupport.rawKeyOptions(key))
        do {
            let raw = try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096)
            try raw.execute(
                """
                INSERT INTO "yap2" VALUES ('byTitle', 'class', CAST('SecondaryIndex' AS BLOB));
                INSERT INTO "yap2" VALUES ('byTitle', 'classVersion', 1);
                INSERT INTO "yap2" VALUES ('search', 'class', CAST('FullTextSearch' AS BLOB));
                """)
        }
        let db = try TestSupport.open(url, options: TestSupport.rawKeyOptions(key))
        #expect(Set(db.previouslyRegisteredExtensionNames) == ["byTitle", "search"])
        #expect(db.snapshot == 1)
    }

    @Test func walLeftBehindByACrashIsRecovered() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let options = TestKeyKind.passphrase.makeOptions()
        var preserved: (wal: Data, shm: Data, db: Data)?
        do {
            let db = try Database(url: url, options: options)
            let conn = try db.newConnection()
            try conn.readWrite { tx in try tx.setObject("checkpointed", forKey: "a", inCollection: nil) }
            try db.checkpoint(truncate: true)
            // Pin the WAL so the next commit stays in it, then copy the files as a crash would leave them.
            let reader = try db.newConnection()
            _ = try reader.beginLongLivedReadTransaction()
            try conn.readWrite { tx in try tx.setObject("only-in-wal", forKey: "b", inCollection: nil) }
            preserved = (TestSupport.bytes(of: db.walURL), TestSupport.bytes(of: db.shmURL), TestSupport.bytes(of: url))
        }
        let copy = dir.file("copy.sqlite")
        let files = try #require(preserved)
        #expect(!files.wal.isEmpty)
        try files.db.write(to: copy)
        try files.wal.write(to: URL(fileURLWithPath: copy.path + "-wal"))
        try files.shm.write(to: URL(fileURLWithPath: copy.path + "-shm"))
        let db = try Database(url: copy, options: options)
        // Commits do not write the snapshot number; closing the database does. This file was never
        // closed, so the numbers go on from the last clean close (here: none).
        #expect(db.snapshot == 0)
        let values = try db.newConnection().read { tx in
            [
                try tx.object(forKey: "a", inCollection: nil, as: String.self),
                try tx.object(forKey: "b", inCollection: nil, as: String.self),
            ]
        }
        #expect(values == ["checkpointed", "only-in-wal"])
    }
}
