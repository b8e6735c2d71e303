import CofferTestSupport
import Foundation
import Testing
@testable import Coffer

@Suite struct KeyRotationTests {
    static let marker = "ROTATION-CANARY-5150"

    func populate(_ db: Database) throws -> Connection {
        let connection = try db.newConnection()
        try connection.readWrite { tx in
            for i in 0..<200 { try tx.setObject("\(Self.marker)-\(i)", forKey: "k\(i)", inCollection: "c") }
        }
        return connection
    }

    func count(_ connection: Connection) throws -> Int {
        try connection.read { try $0.numberOfKeys(inCollection: "c") }
    }

    @Test func rawKeyRotationKeepsConnectionsWorkingAndLocksOutTheOldKey() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let oldKey = TestSupport.randomKey()
        let newKey = TestSupport.randomKey()
        do {
            let db = try Database(url: url, options: TestSupport.rawKeyOptions(oldKey))
            let writer = try populate(db)
            let reader = try db.newConnection()
            #expect(try count(reader) == 200)
            try db.rotateKey(to: .raw(newKey))
            #expect(try count(reader) == 200)
            try writer.readWrite { try $0.setObject("after", forKey: "new", inCollection: "c") }
            #expect(try reader.read { try $0.object(forKey: "new", inCollection: "c", as: String.self) } == "after")
            #expect(try db.newConnection().read { try $0.numberOfKeys(inCollection: "c") } == 201)
        }
        try TestSupport.waitUntilClosed(url)
        let error = #expect(throws: DatabaseError.self) { try Database(url: url, options: TestSupport.rawKeyOptions(oldKey)) }
        #expect(error?.code == .wrongKey)
        let reopened = try Database(url: url, options: TestSupport.rawKeyOptions(newKey))
        let connection = try reopened.newConnection()
        #expect(try count(connection) == 201)
        #expect(try connection.read { try $0.object(forKey: "k7", inCollection: "c", as: String.self) } == "\(Self.marker)-7")
        for file in [url, reopened.walURL] { #expect(!TestSupport.file(file, contains: Data(Self.marker.utf8))) }
        #expect(try connection.pragmaAutoVacuum() == "FULL")
    }

    @Test func rotationCanChangeThePageSize() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let key = TestSupport.randomKey()
        var options = TestSupport.rawKeyOptions(key)
        options.cipher = CipherSettings(pageSize: 1024)
        do {
            let db = try Database(url: url, options: options)
            let connection = try populate(db)
            try db.rotateKey(to: .raw(key), cipher: CipherSettings(pageSize: 4096))
            #expect(db.pageSize == 4096)
            #expect(try count(connection) == 200)
        }
        try TestSupport.waitUntilClosed(url)
        var reopenOptions = TestSupport.rawKeyOptions(key)
        reopenOptions.cipher = CipherSettings(pageSize: 4096)
        let reopened = try Database(url: url, options: reopenOptions)
        #expect(try count(reopened.newConnection()) == 200)
    }

    @Test func aThrowingHookCancelsAndKeepsTheOldKey() throws {
        struct Refused: Error {}
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let oldKey = TestSupport.randomKey()
        var options = TestSupport.rawKeyOptions(oldKey)
        options.keyRotationHooks = KeyRotationHooks(willReplaceFile: { _ in throw Refused() })
        do {
            let db = try Database(url: url, options: options)
            let connection = try populate(db)
            #expect(throws: Refused.self) { try db.rotateKey(to: .raw(TestSupport.randomKey())) }
            #expect(try count(connection) == 200)
        }
        try TestSupport.waitUntilClosed(url)
        #expect(try count(Database(url: url, options: TestSupport.rawKeyOptions(oldKey)).newConnection()) == 200)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty)
    }

    @Test func hooksSeeTheNewKeyAndCandidatesOpenEitherFile() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let oldKey = TestSupport.randomKey()
        let newKey = TestSupport.randomKey()
        let events = Locked<[String]>([])
        var options = TestSupport.rawKeyOptions(oldKey)
        options.keyRotationHooks = KeyRotationHooks(
            willReplaceFile: { key in
                if case .rawKey(let bytes, _) = key, bytes == newKey { events.withLock { $0.append("persist") } }
            },
            didRotate: { events.withLock { $0.append("done") } })
        do {
            let db = try Database(url: url, options: options)
            _ = try populate(db)
            try db.rotateKey(to: .raw(newKey))
        }
        #expect(events.withLock { $0 } == ["persist", "done"])
        try TestSupport.waitUntilClosed(url)
        var both = DatabaseOptions()
        both.key = .candidates { [.raw(newKey), .raw(oldKey)] }
        #expect(try count(Database(url: url, options: both).newConnection()) == 200)
    }

    @Test func anOpenLongLivedReadMakesRotationBusy() throws {
        let dir = TemporaryDirectory()
        var options = TestSupport.rawKeyOptions()
        options.busyTimeout = .milliseconds(200)
        let db = try Database(url: dir.file("db.sqlite"), options: options)
        let connection = try populate(db)
        _ = try connection.beginLongLivedReadTransaction()
        let error = #expect(throws: DatabaseError.self) { try db.rotateKey(to: .raw(TestSupport.randomKey())) }
        #expect(error?.code == .busy)
        try connection.endLongLivedReadTransaction()
        try db.rotateKey(to: .raw(TestSupport.randomKey()))
        #expect(try count(connection) == 200)
    }

    @Test func passphraseRotation() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        var options = DatabaseOptions()
        options.key = .passphrase("old passphrase")
        options.cipher.kdfIterations = 1_000
        do {
            let db = try Database(url: url, options: options)
            _ = try populate(db)
            try db.rotateKey(to: .passphrase("new passphrase"))
            #expect(try count(db.newConnection()) == 200)
        }
        try TestSupport.waitUntilClosed(url)
        options.key = .passphrase("new passphrase")
        #expect(try count(Database(url: url, options: options).newConnection()) == 200)
    }
}
