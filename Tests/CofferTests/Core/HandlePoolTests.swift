import CofferTestSupport
import Foundation
import Testing
@testable import Coffer

/// Released connections' SQLite handles are kept for reuse, within the pool's limits.
@Suite struct HandlePoolTests {
    @Test func releasedHandlesAreReusedWithinTheLimit() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        #expect(db.maxConnectionPoolCount == 5)
        #expect(db.connectionPoolLifetime == .seconds(90))
        let released = Locked<[WeakConnection]>([])
        do {
            let connections = try (0..<7).map { _ in try db.newConnection() }
            released.withLock { $0 = connections.map(WeakConnection.init) }
            try connections[0].readWrite { try $0.setObject("v", forKey: "k", inCollection: nil) }
        }
        // A sibling's cache catch-up, queued by the commit, holds its connection until it has run: wait
        // until all seven are gone (five kept was not enough: a late release refilled the pool after the
        // reuse below).
        let allGone = { released.withLock { $0.allSatisfy { $0.connection == nil } } }
        #expect(TestSupport.wait(timeout: .seconds(10), until: allGone))
        #expect(db.pooledHandleCount == 5, "seven released, five kept")
        let reused = try db.newConnection()
        #expect(db.pooledHandleCount == 4)
        #expect(try reused.read { try $0.object(forKey: "k", inCollection: nil, as: String.self) } == "v")

        db.maxConnectionPoolCount = 1
        #expect(db.pooledHandleCount == 1, "lowering the limit closes the extra handles")
        db.maxConnectionPoolCount = 0
        #expect(db.pooledHandleCount == 0)
        do { _ = try db.newConnection() }
        #expect(db.pooledHandleCount == 0, "a limit of 0 keeps none")
    }

    @Test func keptHandlesExpireAfterTheirLifetime() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        db.connectionPoolLifetime = .milliseconds(50)
        do { _ = try db.newConnection() }
        #expect(db.pooledHandleCount == 1)
        #expect(TestSupport.wait(timeout: .seconds(5)) { db.pooledHandleCount == 0 })
    }

    @Test func aLongLivedReadIsEndedBeforeItsHandleIsKept() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        do {
            let connection = try db.newConnection()
            _ = try connection.beginLongLivedReadTransaction()
        }
        let writer = try db.newConnection()
        try writer.readWrite { try $0.setObject(1, forKey: "k", inCollection: nil) }
        try db.rotateKey(to: .raw(TestSupport.randomKey()))
        #expect(try writer.read { try $0.numberOfKeysInAllCollections() } == 1)
    }
}

/// A connection held weakly, to see when it has been released.
private struct WeakConnection: @unchecked Sendable {
    // Safety: only read and written under the `Locked` that holds the array.
    weak var connection: Connection?

    init(_ connection: Connection) { self.connection = connection }
}
