import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Nothing written through Coffer reaches the disk in plaintext.
///
/// Not the database file, not the WAL, not the shared-memory index, while open or after close.
/// An unencrypted control database proves the scan finds the canary when it is there.
@Suite struct EncryptionAtRestTests {
    /// Writes `canary` into objects, metadata, keys and collection names, including values
    /// large enough to need overflow pages.
    private func writeCanaries(_ connection: Connection, _ canary: String) throws {
        try connection.readWrite { tx in
            for index in 0..<40 {
                try tx.setObject(
                    "object \(index) \(canary)", forKey: "key-\(index)", inCollection: "notes",
                    withMetadata: "metadata \(index) \(canary)")
            }
            try tx.setObject("row keyed by the canary", forKey: "key-\(canary)", inCollection: "coll-\(canary)")
            try tx.setObject(String(repeating: "\(canary) ", count: 5_000), forKey: "big", inCollection: "notes")
        }
        try connection.readWrite { tx in
            try tx.replaceMetadata(["nested": canary], forKey: "key-1", inCollection: "notes")
            try tx.setObject(Data("raw \(canary)".utf8), forKey: "raw", inCollection: "notes")
        }
    }

    /// The names of the files in `directory` that contain `needle`.
    private func filesContaining(_ needle: String, in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            TestSupport.file(directory.appendingPathComponent($0), contains: Data(needle.utf8))
        }
    }

    @Test(arguments: TestKeyKind.allCases)
    func canaryNeverReachesTheDisk(kind: TestKeyKind) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = kind.makeOptions()
        let canary = "CANARY-\(UUID().uuidString)"
        do {
            let db = try Database(url: url, options: options)
            let conn = try db.newConnection()
            try writeCanaries(conn, canary)
            // While open, before any explicit checkpoint: the commits sit in the WAL.
            #expect(FileManager.default.fileExists(atPath: db.walURL.path))
            #expect(try filesContaining(canary, in: directory.url).isEmpty)
            for file in [url, db.walURL, db.shmURL] {
                #expect(!TestSupport.file(file, contains: Data(canary.utf8)), "\(file.lastPathComponent)")
            }
            // Reading back works, so the data is really there.
            let read = try conn.read { tx in try tx.object(forKey: "key-3", inCollection: "notes", as: String.self) }
            #expect(read == "object 3 \(canary)")
            // After a checkpoint the pages are in the main file: still encrypted.
            try db.checkpoint()
            #expect(try filesContaining(canary, in: directory.url).isEmpty)
            try db.checkpoint(truncate: true)
            #expect(try filesContaining(canary, in: directory.url).isEmpty)
        }
        try TestSupport.waitUntilClosed(url)
        #expect(try filesContaining(canary, in: directory.url).isEmpty)
        #expect(!TestSupport.bytes(of: url).starts(with: Data("SQLite format 3".utf8)))
        // The canary is in the file, encrypted: reopening finds it.
        let db = try TestSupport.open(url, options: options)
        let big = try db.newConnection().read { tx in
            try tx.object(forKey: "big", inCollection: "notes", as: String.self)
        }
        #expect(big?.hasPrefix(canary) == true)
    }

    @Test func unencryptedControlDatabaseDoesContainTheCanary() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let canary = "CANARY-\(UUID().uuidString)"
        do {
            let db = try Database(url: url)
            try writeCanaries(try db.newConnection(), canary)
            #expect(try !filesContaining(canary, in: directory.url).isEmpty)
            try db.checkpoint(truncate: true)
            #expect(TestSupport.file(url, contains: Data(canary.utf8)))
        }
        try TestSupport.waitUntilClosed(url)
        #expect(TestSupport.file(url, contains: Data(canary.utf8)))
        #expect(TestSupport.file(url, contains: Data("key-\(canary)".utf8)))
        #expect(TestSupport.file(url, contains: Data("coll-\(canary)".utf8)))
    }

    @Test func removedRowsDoNotLingerInPlaintext() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestSupport.rawKeyOptions()
        let canary = "CANARY-\(UUID().uuidString)"
        do {
            let db = try Database(url: url, options: options)
            let conn = try db.newConnection()
            try writeCanaries(conn, canary)
            try conn.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            try conn.vacuum()
            #expect(try filesContaining(canary, in: directory.url).isEmpty)
        }
        try TestSupport.waitUntilClosed(url)
        #expect(try filesContaining(canary, in: directory.url).isEmpty)
    }

    @Test func connectionsKeepTemporaryDataInMemory() throws {
        // `temp_store = FILE` would write sort and index scratch data unencrypted (DESIGN.md §3).
        let test = try TestDatabase()
        let conn = try test.connection()
        let tempStore = try conn.read { tx in try tx.core.sqlite.scalarInt("PRAGMA temp_store") }
        #expect(tempStore == 0 || tempStore == 2)
        if tempStore == 0 {
            // The default defers to the build, which must keep temporary data in memory.
            let options = try conn.read { tx in
                let stmt = try tx.core.sqlite.prepare("PRAGMA compile_options")
                var all: [String] = []
                while try stmt.step() { all.append(stmt.text(0)) }
                return all
            }
            #expect(options.contains("TEMP_STORE=2") || options.contains("TEMP_STORE=3"))
        }
    }

    @Test func everyHandleIsKeyed() throws {
        // A second connection's handle reads the encrypted file only because it was keyed: a
        // handle opened without the key on the same file cannot read it.
        let test = try TestDatabase(.passphrase)
        let conn = try test.connection()
        try conn.readWrite { tx in try tx.setObject("v", forKey: "k", inCollection: nil) }
        let second = try test.connection()
        #expect(try second.read { tx in try tx.object(forKey: "k", inCollection: nil, as: String.self) } == "v")
        #expect(throws: (any Error).self) { _ = try RawDatabaseFile(url: test.url, rawKey: nil) }
    }
}
