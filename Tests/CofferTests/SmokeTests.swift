import CofferTestSupport
import Foundation
import Testing
@testable import Coffer

struct Note: Codable, Sendable, Equatable {
    var title: String
    var body: String
}

@Test func collectionKeyOrders() {
    #expect(CollectionKey(collection: "a", key: "b") < CollectionKey(collection: "b", key: "a"))
}

@Test func writeReadReopen() throws {
    let dir = TemporaryDirectory()
    let url = dir.file("db.sqlite")
    let key = TestSupport.randomKey()
    do {
        let db = try Database(url: url, options: TestSupport.rawKeyOptions(key))
        db.registerCodable(Note.self, forCollection: "notes")
        let conn = try db.newConnection()
        try conn.readWrite { tx in
            try tx.setObject(Note(title: "t", body: "CANARY-BODY"), forKey: "n1", inCollection: "notes")
            try tx.setObject(Note(title: "u", body: "b"), forKey: "n2", inCollection: "auto", withMetadata: 42)
        }
        #expect(db.snapshot == 1)
        let n = try conn.read { tx in try tx.object(forKey: "n1", inCollection: "notes", as: Note.self) }
        #expect(n == Note(title: "t", body: "CANARY-BODY"))
        let other = try db.newConnection()
        let auto = try other.read { tx in try tx.object(forKey: "n2", inCollection: "auto", as: Note.self) }
        #expect(auto?.title == "u")
        let meta = try other.read { tx in try tx.metadata(forKey: "n2", inCollection: "auto", as: Int.self) }
        #expect(meta == 42)
    }
    let db = try TestSupport.open(url, options: TestSupport.rawKeyOptions(key))
    #expect(db.snapshot == 1)
    let conn = try db.newConnection()
    let count = try conn.read { tx in try tx.numberOfKeysInAllCollections() }
    #expect(count == 2)
    #expect(!TestSupport.file(url, contains: Data("CANARY-BODY".utf8)))
}

@Test func passphraseSecondConnection() throws {
    let dir = TemporaryDirectory()
    var options = DatabaseOptions()
    options.key = .passphrase("correct horse")
    let db = try Database(url: dir.file("p.db"), options: options)
    let c1 = try db.newConnection()
    try c1.readWrite { tx in try tx.setObject("v", forKey: "k", inCollection: nil) }
    let c2 = try db.newConnection()
    let v = try c2.read { tx in try tx.object(forKey: "k", inCollection: nil, as: String.self) }
    #expect(v == "v")
}

@Test func wrongKeyFails() throws {
    let dir = TemporaryDirectory()
    let url = dir.file("db.sqlite")
    let options = TestSupport.rawKeyOptions()
    do {
        let db = try Database(url: url, options: options)
        let c = try db.newConnection()
        try c.readWrite { tx in try tx.setObject("x", forKey: "k", inCollection: nil) }
    }
    try TestSupport.waitUntilClosed(url)
    #expect(throws: DatabaseError.self) { try Database(url: url, options: TestSupport.rawKeyOptions()) }
    do {
        _ = try Database(url: url, options: TestSupport.rawKeyOptions())
    } catch let error as DatabaseError {
        #expect(error.code == .wrongKey)
    }
}
