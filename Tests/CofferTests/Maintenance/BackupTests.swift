import CofferTestSupport
import Foundation
import Testing
@testable import Coffer

@Suite struct BackupTests {
    static let marker = "BACKUP-CANARY-7731"

    func populated(_ dir: TemporaryDirectory, key: Data, cipher: CipherSettings = CipherSettings()) throws -> Database {
        var options = TestSupport.rawKeyOptions(key)
        options.cipher = cipher
        let db = try Database(url: dir.file("source.db"), options: options)
        let connection = try db.newConnection()
        try connection.readWrite { tx in
            for i in 0..<300 {
                try tx.setObject("\(Self.marker)-\(i)", forKey: "k\(i)", inCollection: "c", withMetadata: i)
            }
        }
        return db
    }

    func expectReadable(_ url: URL, options: DatabaseOptions) throws {
        let copy = try Database(url: url, options: options)
        let connection = try copy.newConnection()
        let (count, value) = try connection.read { tx in
            (try tx.numberOfKeys(inCollection: "c"), try tx.object(forKey: "k7", inCollection: "c", as: String.self))
        }
        #expect(count == 300)
        #expect(value == "\(Self.marker)-7")
        #expect(!TestSupport.file(url, contains: Data(Self.marker.utf8)))
    }

    @Test func sameKeyBackupOpensAndIsEncrypted() throws {
        let dir = TemporaryDirectory()
        let key = TestSupport.randomKey()
        let db = try populated(dir, key: key)
        let target = dir.file("backup.db")
        try db.newConnection().backup(to: target)
        try expectReadable(target, options: TestSupport.rawKeyOptions(key))
    }

    @Test func backupWithNewKeyAndPageSizeUsesExport() throws {
        let dir = TemporaryDirectory()
        let db = try populated(dir, key: TestSupport.randomKey(), cipher: CipherSettings(pageSize: 1024))
        let newKey = TestSupport.randomKey()
        let target = dir.file("backup.db")
        try db.newConnection().backup(to: target, key: .raw(newKey), cipher: CipherSettings(pageSize: 4096))
        var options = TestSupport.rawKeyOptions(newKey)
        options.cipher = CipherSettings(pageSize: 4096)
        try expectReadable(target, options: options)
    }

    @Test func backupWithNewKeySamePageSize() throws {
        let dir = TemporaryDirectory()
        let db = try populated(dir, key: TestSupport.randomKey())
        let newKey = TestSupport.randomKey()
        let target = dir.file("backup.db")
        try db.newConnection().backup(to: target, key: .raw(newKey))
        try expectReadable(target, options: TestSupport.rawKeyOptions(newKey))
    }

    @Test func cancelledBackupLeavesNoFile() throws {
        let dir = TemporaryDirectory()
        let db = try populated(dir, key: TestSupport.randomKey())
        let progress = Progress(totalUnitCount: 1)
        progress.cancel()
        let target = dir.file("backup.db")
        #expect { try db.newConnection().backup(to: target, progress: progress) } throws: { error in
            (error as? DatabaseError)?.code == .cancelled
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains("backup") }
        #expect(leftovers.isEmpty)
    }

    @Test func backupRemovesWhatKilledBackupsToTheSameDestinationLeft() throws {
        let dir = TemporaryDirectory()
        let key = TestSupport.randomKey()
        let db = try populated(dir, key: key)
        let target = dir.file("backup.db")
        let killed = ".backup.db.coffer-partial-\(UUID().uuidString)"
        let otherDestination = ".other.db.coffer-partial-\(UUID().uuidString)"
        for name in [killed, killed + "-journal", killed + ".lock", otherDestination] {
            #expect(FileManager.default.createFile(atPath: dir.file(name).path, contents: Data("left over".utf8)))
        }
        try db.newConnection().backup(to: target)
        let partials = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter {
            $0.contains(".coffer-partial-")
        }
        #expect(partials == [otherDestination])
        try expectReadable(target, options: TestSupport.rawKeyOptions(key))
    }

    @Test func unencryptedExportIsExplicit() throws {
        let dir = TemporaryDirectory()
        let db = try populated(dir, key: TestSupport.randomKey())
        let target = dir.file("plain.db")
        try db.newConnection().exportUnencryptedCopy(to: target)
        #expect(TestSupport.file(target, contains: Data(Self.marker.utf8)))
        let plain = try Database(url: target, options: DatabaseOptions())
        #expect(try plain.newConnection().read { try $0.numberOfKeys(inCollection: "c") } == 300)
    }
}
