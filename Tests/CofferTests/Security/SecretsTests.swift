import CofferTestSupport
import Foundation
import InMemoryLogging
import Logging
import Testing
@testable import Coffer

/// Secrets (passphrases, key bytes, stored values) never reach error descriptions or logs.
@Suite struct SecretsTests {
    static let passphrase = "PASSPHRASE-CANARY-8842"
    static let value = "VALUE-CANARY-1203"

    @Test func errorsAndLogsNeverContainSecrets() throws {
        let dir = TemporaryDirectory()
        let logs = InMemoryLogHandler()
        var options = DatabaseOptions()
        options.key = .passphrase(Self.passphrase)
        options.cipher.kdfIterations = 1_000
        options.logger = Logger(label: "test", factory: { _ in logs })
        let url = dir.file("db.sqlite")
        var descriptions: [String] = []
        do {
            let db = try Database(url: url, options: options)
            db.registerCodable(Int.self, forCollection: "ints")
            let connection = try db.newConnection()
            try connection.readWrite { try $0.setObject(Self.value, forKey: "k", inCollection: nil) }
            // A value the registered codec refuses, and a typed read of the wrong type.
            do { try connection.readWrite { try $0.setObject(Self.value, forKey: "k", inCollection: "ints") } } catch {
                descriptions.append(String(describing: error))
            }
            do { _ = try connection.read { try $0.object(forKey: "k", inCollection: nil, as: Int.self) } } catch {
                descriptions.append(String(describing: error))
            }
            _ = try connection.beginLongLivedReadTransaction()
            try connection.readWrite { try $0.setObject(Self.value + "2", forKey: "k2", inCollection: nil) }
        }
        try TestSupport.waitUntilClosed(url)
        var wrong = options
        wrong.key = .passphrase(Self.passphrase + "x")
        do { _ = try Database(url: url, options: wrong) } catch { descriptions.append(String(describing: error)) }
        var raw = options
        raw.key = .raw(Data(Self.passphrase.utf8.prefix(31)))
        do { _ = try Database(url: url, options: raw) } catch { descriptions.append(String(describing: error)) }
        let keyURL = dir.file("db.key")
        _ = try KeyFile.create(at: keyURL, passphrase: Data(Self.passphrase.utf8), parameters: .scrypt(n: 1 << 10, r: 8, p: 1))
        var fileKey = options
        fileKey.key = .keyFile(keyURL, passphrase: Data("wrong".utf8))
        do { _ = try Database(url: dir.file("other.sqlite"), options: fileKey) } catch {
            descriptions.append(String(describing: error))
        }
        #expect(descriptions.count == 5)
        let logText = logs.entries.map { "\($0.message) \($0.metadata)" }
        #expect(!logText.isEmpty, "the implicit end of a long-lived read is logged")
        for text in descriptions + logText {
            #expect(!text.contains(Self.passphrase), "\(text)")
            #expect(!text.contains(Self.value), "\(text)")
        }
    }

    @Test func changingTheKeyFilePassphraseLeavesTheDatabaseUntouched() throws {
        let dir = TemporaryDirectory()
        let keyURL = dir.file("db.key")
        _ = try KeyFile.create(at: keyURL, passphrase: Data("old".utf8), parameters: .scrypt(n: 1 << 10, r: 8, p: 1))
        var options = DatabaseOptions()
        options.key = .keyFile(keyURL, passphrase: Data("old".utf8))
        let url = dir.file("db.sqlite")
        // A 100 MiB database: the change rewrites only the small key file, so its cost does not
        // depend on the database's size (the figure is printed, not asserted: no timing tests).
        let rows = 25_600
        do {
            let db = try Database(url: url, options: options)
            db.registerData(forCollection: "blobs")
            let block = Data(repeating: 0x5A, count: 4096)
            try db.newConnection().readWrite { tx in
                for i in 0..<rows { try tx.setObject(block, forKey: "\(i)", inCollection: "blobs") }
            }
            try db.checkpoint(truncate: true)
        }
        try TestSupport.waitUntilClosed(url)
        let before = TestSupport.bytes(of: url)
        #expect(before.count >= 100 * 1024 * 1024)
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            try KeyFile.changePassphrase(at: keyURL, from: Data("old".utf8), to: Data("new".utf8))
        }
        print("KeyFile.changePassphrase on a \(before.count / 1_048_576) MiB database: \(elapsed) (scrypt N=2^10)")
        #expect(TestSupport.bytes(of: url) == before)
        options.key = .keyFile(keyURL, passphrase: Data("new".utf8))
        #expect(try Database(url: url, options: options).newConnection().read { try $0.numberOfKeysInAllCollections() } == rows)
        #expect(!TestSupport.file(keyURL, contains: Data("new".utf8)))
    }

    @Test func plaintextDatabasesAreEncryptedOnImport() throws {
        let dir = TemporaryDirectory()
        let plain = dir.file("plain.sqlite")
        do {
            let db = try Database(url: plain, options: DatabaseOptions())
            try db.newConnection().readWrite { tx in
                for i in 0..<50 { try tx.setObject("\(Self.value)-\(i)", forKey: "k\(i)", inCollection: "c") }
            }
            try db.checkpoint(truncate: true)
        }
        try TestSupport.waitUntilClosed(plain)
        #expect(TestSupport.file(plain, contains: Data(Self.value.utf8)))
        let key = TestSupport.randomKey()
        let encrypted = dir.file("encrypted.sqlite")
        try Database.encryptPlaintextDatabase(at: plain, to: encrypted, key: .raw(key))
        #expect(!TestSupport.file(encrypted, contains: Data(Self.value.utf8)))
        let db = try Database(url: encrypted, options: TestSupport.rawKeyOptions(key))
        #expect(try db.newConnection().read { try $0.object(forKey: "k3", inCollection: "c", as: String.self) } == "\(Self.value)-3")
        #expect(try db.newConnection().read { try $0.numberOfKeys(inCollection: "c") } == 50)

        let again = #expect(throws: DatabaseError.self) {
            try Database.encryptPlaintextDatabase(at: encrypted, to: dir.file("twice.sqlite"), key: .raw(key))
        }
        #expect(again?.code == .keyRequired)
    }
}
