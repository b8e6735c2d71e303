import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

@Suite struct ConnectionProxyTests {
    let dir = TemporaryDirectory()
    let key = TestSupport.randomKey()

    func open() throws -> Database {
        try Database(url: dir.file("proxy.db"), options: TestSupport.rawKeyOptions(key))
    }

    @Test func readsYourWritesBeforeAnyFlush() throws {
        let db = try open()
        let proxy = try ConnectionProxy(database: db)
        let lock = try WriteLockHolder(db)
        proxy.setObject("v1", forKey: "k", inCollection: "c", withMetadata: 7)
        proxy.setObject(Note(title: "t", body: "b"), forKey: "n", inCollection: "notes")
        // The write lock is held elsewhere: nothing can have reached the database yet.
        #expect(try ProxyTestSupport.stored(db, "k", "c") == nil)
        #expect(try proxy.object(forKey: "k", inCollection: "c", as: String.self) == "v1")
        #expect(try proxy.metadata(forKey: "k", inCollection: "c", as: Int.self) == 7)
        #expect(try proxy.object(forKey: "n", inCollection: "notes", as: Note.self) == Note(title: "t", body: "b"))
        let row = try proxy.objectAndMetadata(forKey: "k", inCollection: "c")
        #expect(row?.object as? String == "v1")
        #expect(row?.metadata as? Int == 7)
        #expect(proxy.pendingChangeCount == 2)
        #expect(throws: DatabaseError.self) { try proxy.object(forKey: "k", inCollection: "c", as: Int.self) }

        proxy.removeObject(forKey: "k", inCollection: "c")
        #expect(try proxy.object(forKey: "k", inCollection: "c") == nil)
        #expect(try proxy.metadata(forKey: "k", inCollection: "c") == nil)
        #expect(try proxy.objectAndMetadata(forKey: "k", inCollection: "c") == nil)
        lock.release()
        try proxy.flush()
        #expect(proxy.pendingChangeCount == 0)
        #expect(try ProxyTestSupport.stored(db, "k", "c") == nil)
        let note = try ProxyTestSupport.connection(db).read { tx in
            try tx.object(forKey: "n", inCollection: "notes", as: Note.self)
        }
        #expect(note == Note(title: "t", body: "b"))
    }

    @Test func readsFallBackToTheDatabase() throws {
        let db = try open()
        try ProxyTestSupport.connection(db).readWrite { tx in
            try tx.setObject("stored", forKey: "k", inCollection: "c", withMetadata: "meta")
        }
        let proxy = try ConnectionProxy(database: db)
        #expect(try proxy.object(forKey: "k", inCollection: "c", as: String.self) == "stored")
        #expect(try proxy.metadata(forKey: "k", inCollection: "c", as: String.self) == "meta")
        #expect(try proxy.object(forKey: "missing", inCollection: "c") == nil)
        #expect(!proxy.hasPendingChange(forKey: "k", inCollection: "c"))
    }

    @Test func coalescesChangesMadeWhileAWriteIsInFlight() async throws {
        let db = try open()
        let gate = WriteGate()
        db.registerSerializer(gate.chain, forCollection: "c")
        let proxy = try ConnectionProxy(database: db)
        let changes = db.changes
        let before = db.snapshot
        gate.arm()
        proxy.setObject("BLOCK", forKey: "first", inCollection: "c")
        try #require(gate.waitUntilHeld())
        for i in 0..<1_000 {
            proxy.setObject("v\(i)", forKey: "k\(i % 250)", inCollection: "c")
        }
        gate.open()
        try await proxy.flush()
        let commits = Int(db.snapshot - before)
        // One batch in flight plus one for everything that arrived meanwhile.
        #expect(commits >= 2)
        #expect(commits <= 3)
        var seen = 0
        var keys = 0
        for await changeset in changes {
            #expect(changeset.connectionID == proxy.writeConnection.id)
            #expect((changeset.customObject as? ConnectionProxyCommit)?.proxyID == proxy.id)
            keys += changeset.objectChanges.count
            seen += 1
            if seen == commits { break }
        }
        #expect(keys == 251)
        #expect(try ProxyTestSupport.stored(db, "k7", "c") == "v757")
        #expect(proxy.pendingChangeCount == 0)
    }

    @Test func changesQueuedBehindTheWriteLockShareOneTransaction() throws {
        let db = try open()
        let proxy = try ConnectionProxy(database: db)
        let before = db.snapshot
        let lock = try WriteLockHolder(db)
        for i in 0..<500 { proxy.setObject(i, forKey: "k\(i)", inCollection: "c") }
        lock.release()
        try proxy.flush()
        #expect(db.snapshot - before == 1)
        let count = try ProxyTestSupport.connection(db).read { tx in try tx.numberOfKeys(inCollection: "c") }
        #expect(count == 500)
    }

    @Test func keyChangedDuringItsBatchKeepsTheNewerValue() throws {
        let db = try open()
        let gate = WriteGate()
        db.registerSerializer(gate.chain, forCollection: "c")
        let proxy = try ConnectionProxy(database: db)
        let lock = try WriteLockHolder(db)
        proxy.setObject("a-value", forKey: "a", inCollection: "c")
        proxy.setObject("BLOCK-1", forKey: "k", inCollection: "c")
        gate.arm(2)
        lock.release()
        // Batch 1 captured {a, k} and is held while writing k.
        try #require(gate.waitUntilHeld())
        proxy.setObject("BLOCK-2", forKey: "k", inCollection: "c")
        #expect(try proxy.object(forKey: "k", inCollection: "c", as: String.self) == "BLOCK-2")
        gate.open()
        // Batch 1 committed; batch 2 (only k) is now held.
        try #require(gate.waitUntilHeld())
        #expect(try ProxyTestSupport.stored(db, "k", "c") == "BLOCK-1")
        #expect(!proxy.hasPendingChange(forKey: "a", inCollection: "c"))
        #expect(proxy.hasPendingChange(forKey: "k", inCollection: "c"))
        #expect(try proxy.object(forKey: "k", inCollection: "c", as: String.self) == "BLOCK-2")
        gate.open()
        try proxy.flush()
        #expect(try ProxyTestSupport.stored(db, "k", "c") == "BLOCK-2")
        #expect(try ProxyTestSupport.stored(db, "a", "c") == "a-value")
        #expect(proxy.pendingChangeCount == 0)
    }

    @Test func resetDropsPendingChanges() throws {
        let db = try open()
        try ProxyTestSupport.connection(db).readWrite { tx in try tx.setObject("old", forKey: "k1", inCollection: "c") }
        let proxy = try ConnectionProxy(database: db)
        let lock = try WriteLockHolder(db)
        proxy.setObject("new", forKey: "k1", inCollection: "c")
        proxy.setObject("x", forKey: "k2", inCollection: "c")
        proxy.setObject("y", forKey: "k3", inCollection: "c")
        proxy.reset(key: "k1", inCollection: "c")
        #expect(try proxy.object(forKey: "k1", inCollection: "c", as: String.self) == "old")
        #expect(proxy.pendingChangeCount == 2)
        proxy.reset()
        #expect(proxy.pendingChangeCount == 0)
        #expect(try proxy.object(forKey: "k2", inCollection: "c") == nil)
        lock.release()
        try proxy.flush()
        #expect(try ProxyTestSupport.stored(db, "k1", "c") == "old")
        #expect(try ProxyTestSupport.stored(db, "k2", "c") == nil)
        // The proxy keeps working after a reset.
        proxy.setObject("z", forKey: "k2", inCollection: "c")
        try proxy.flush()
        #expect(try ProxyTestSupport.stored(db, "k2", "c") == "z")
    }

    @Test func collectionFilterLimitsDatabaseReads() throws {
        let db = try open()
        try ProxyTestSupport.connection(db).readWrite { tx in
            try tx.setObject("one", forKey: "k", inCollection: "c1")
            try tx.setObject("two", forKey: "k", inCollection: "c2")
        }
        let proxy = try ConnectionProxy(database: db)
        proxy.fetchedCollectionsFilter = .only(["c1"])
        #expect(try proxy.object(forKey: "k", inCollection: "c1", as: String.self) == "one")
        #expect(try proxy.object(forKey: "k", inCollection: "c2") == nil)
        #expect(try proxy.objectAndMetadata(forKey: "k", inCollection: "c2") == nil)
        // Pending values of a filtered collection are visible until written; then they read as nil.
        let lock = try WriteLockHolder(db)
        proxy.setObject("pending", forKey: "p", inCollection: "c2")
        #expect(try proxy.object(forKey: "p", inCollection: "c2", as: String.self) == "pending")
        lock.release()
        try proxy.flush()
        #expect(try proxy.object(forKey: "p", inCollection: "c2") == nil)
        // A filtered row counts as missing for replace.
        try proxy.replaceObject("replaced", forKey: "k", inCollection: "c2")
        #expect(!proxy.hasPendingChange(forKey: "k", inCollection: "c2"))
        proxy.fetchedCollectionsFilter = .allExcept(["c1"])
        #expect(try proxy.object(forKey: "k", inCollection: "c1") == nil)
        #expect(try proxy.object(forKey: "k", inCollection: "c2", as: String.self) == "two")
    }

    @Test func replaceTouchesOnlyExistingRows() throws {
        let db = try open()
        try ProxyTestSupport.connection(db).readWrite { tx in
            try tx.setObject("object", forKey: "row", inCollection: "c", withMetadata: "meta")
        }
        let proxy = try ConnectionProxy(database: db)
        try proxy.replaceObject("ghost", forKey: "missing", inCollection: "c")
        try proxy.replaceMetadata("ghost", forKey: "missing", inCollection: "c")
        #expect(proxy.pendingChangeCount == 0)
        try proxy.replaceObject("object2", forKey: "row", inCollection: "c")
        #expect(try proxy.metadata(forKey: "row", inCollection: "c", as: String.self) == "meta")
        proxy.setObject("fresh", forKey: "new", inCollection: "c")
        try proxy.replaceMetadata(5, forKey: "new", inCollection: "c")
        proxy.removeObject(forKey: "gone", inCollection: "c")
        try proxy.replaceObject("back", forKey: "gone", inCollection: "c")
        #expect(try proxy.object(forKey: "gone", inCollection: "c") == nil)
        try proxy.flush()
        let (object, metadata, newMetadata) = try ProxyTestSupport.connection(db).read { tx in
            (
                try tx.object(forKey: "row", inCollection: "c", as: String.self),
                try tx.metadata(forKey: "row", inCollection: "c", as: String.self),
                try tx.metadata(forKey: "new", inCollection: "c", as: Int.self)
            )
        }
        #expect(object == "object2")
        #expect(metadata == "meta")
        #expect(newMetadata == 5)
    }

    @Test func removeObjectsRemovesEveryKey() throws {
        let db = try open()
        let proxy = try ConnectionProxy(database: db)
        for i in 0..<10 { proxy.setObject(i, forKey: "k\(i)", inCollection: "c") }
        try proxy.flush()
        proxy.removeObjects(forKeys: (0..<5).map { "k\($0)" }, inCollection: "c")
        #expect(try proxy.object(forKey: "k1", inCollection: "c") == nil)
        #expect(try proxy.object(forKey: "k6", inCollection: "c", as: Int.self) == 6)
        try proxy.flush()
        let count = try ProxyTestSupport.connection(db).read { tx in try tx.numberOfKeys(inCollection: "c") }
        #expect(count == 5)
    }

    @Test func failedBatchKeepsItsValuesAndIsRetried() async throws {
        let db = try open()
        let gate = WriteGate()
        db.registerSerializer(gate.chain, forCollection: "c")
        let proxy = try ConnectionProxy(database: db)
        gate.failing.store(true, ordering: .relaxed)
        // Both changes go into one batch: its transaction fails and rolls back as a whole.
        let lock = try WriteLockHolder(db)
        proxy.setObject("kept", forKey: "ok", inCollection: "c")
        proxy.setObject(WriteGate.failMarker, forKey: "bad", inCollection: "c")
        lock.release()
        let error = #expect(throws: DatabaseError.self) { try proxy.flush() }
        #expect(error?.code == .serialization)
        #expect(proxy.lastWriteError != nil)
        // Nothing vanished: both values are still pending and readable.
        #expect(try proxy.object(forKey: "bad", inCollection: "c", as: String.self) == WriteGate.failMarker)
        #expect(try proxy.object(forKey: "ok", inCollection: "c", as: String.self) == "kept")
        #expect(proxy.pendingChangeCount == 2)
        #expect(try ProxyTestSupport.stored(db, "ok", "c") == nil)
        // Still failing: the async flush retries and reports the error again.
        await #expect(throws: DatabaseError.self) { try await proxy.flush() }
        gate.failing.store(false, ordering: .relaxed)
        try await proxy.flush()
        #expect(proxy.lastWriteError == nil)
        #expect(proxy.pendingChangeCount == 0)
        #expect(try ProxyTestSupport.stored(db, "bad", "c") == WriteGate.failMarker)
        #expect(try ProxyTestSupport.stored(db, "ok", "c") == "kept")
    }

    @Test func failedBatchIsRetriedByTheNextChange() throws {
        let db = try open()
        let gate = WriteGate()
        db.registerSerializer(gate.chain, forCollection: "c")
        let proxy = try ConnectionProxy(database: db)
        gate.failing.store(true, ordering: .relaxed)
        proxy.setObject(WriteGate.failMarker, forKey: "bad", inCollection: "c")
        #expect(TestSupport.wait { proxy.lastWriteError != nil })
        gate.failing.store(false, ordering: .relaxed)
        proxy.setObject("later", forKey: "other", inCollection: "c")
        #expect(TestSupport.wait { proxy.pendingChangeCount == 0 })
        #expect(try ProxyTestSupport.stored(db, "bad", "c") == WriteGate.failMarker)
    }

    @Test func flushWithNothingPendingReturnsAtOnce() async throws {
        let db = try open()
        let proxy = try ConnectionProxy(database: db)
        try Self.flushBlocking(proxy)
        try await proxy.flush()
        #expect(proxy.pendingChangeCount == 0)
    }

    @Test func flushInsideAWriteTransactionIsMisuse() throws {
        let db = try open()
        let proxy = try ConnectionProxy(database: db)
        proxy.setObject(1, forKey: "k", inCollection: "c")
        let other = try ProxyTestSupport.connection(db)
        try other.readWrite { _ in
            let error = #expect(throws: DatabaseError.self) { try proxy.flush() }
            #expect(error?.code == .misuse)
        }
        try proxy.flush()
    }

    @Test func sharedConnectionsMustBelongToOneDatabase() throws {
        let db = try open()
        let otherDir = TemporaryDirectory()
        let otherDB = try Database(url: otherDir.file("other.db"), options: TestSupport.rawKeyOptions())
        #expect(throws: DatabaseError.self) {
            _ = try ConnectionProxy(
                readConnection: ProxyTestSupport.connection(db), writeConnection: otherDB.newConnection())
        }
        let shared = try ProxyTestSupport.connection(db)
        let proxy = try ConnectionProxy(readConnection: shared, writeConnection: shared)
        proxy.setObject("v", forKey: "k", inCollection: "c")
        try proxy.flush()
        #expect(try proxy.object(forKey: "k", inCollection: "c", as: String.self) == "v")
    }

    @Test func flushedChangesSurviveClosingAndReopening() throws {
        let url = dir.file("proxy.db")
        do {
            let db = try open()
            let proxy = try ConnectionProxy(database: db)
            for i in 0..<100 { proxy.setObject("value-\(i)", forKey: "k\(i)", inCollection: "c", withMetadata: i) }
            proxy.removeObject(forKey: "k0", inCollection: "c")
            try proxy.flush()
        }
        let db = try ProxyTestSupport.reopen(url, key: key)
        let (count, value, metadata) = try ProxyTestSupport.connection(db).read { tx in
            (
                try tx.numberOfKeys(inCollection: "c"),
                try tx.object(forKey: "k42", inCollection: "c", as: String.self),
                try tx.metadata(forKey: "k42", inCollection: "c", as: Int.self)
            )
        }
        #expect(count == 99)
        #expect(value == "value-42")
        #expect(metadata == 42)
    }

    /// Calls the blocking `flush()` (an async context would pick the `async` overload).
    static func flushBlocking(_ proxy: ConnectionProxy) throws {
        try proxy.flush()
    }
}
