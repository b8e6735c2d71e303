import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `Database.close(timeout:)`: what it writes, waits for and releases, and reopening right after it.
@Suite struct DatabaseCloseTests {
    private static func isClosedError(_ error: any Error, _ url: URL) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.code == .closed && error.path == url.path && error.description.contains(url.path)
    }

    @Test(arguments: TestKeyKind.allCases)
    func reopensAtOnceWithTheOldInstanceStillReferenced(kind: TestKeyKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let options = kind.makeOptions()
        let old = try Database(url: url, options: options)
        let connection = try old.newConnection()
        try connection.readWrite { tx in
            for i in 0..<50 { try tx.setObject(i, forKey: "k\(i)", inCollection: "numbers") }
        }
        try old.close()
        #expect(old.isClosed)
        #expect(Database.waitUntilClosed(url, timeout: .zero))
        // Every handle is closed: the last one checkpointed the log and removed it.
        #expect(!FileManager.default.fileExists(atPath: old.walURL.path))

        // The old database and its connection are still referenced here.
        let reopened = try Database(url: url, options: options)
        #expect(reopened.snapshot == 1)
        let count = try reopened.newConnection().read { tx in try tx.numberOfKeys(inCollection: "numbers") }
        #expect(count == 50)
        #expect(throws: DatabaseError.self) { try connection.read { _ in } }
        try reopened.close()
    }

    @Test func reopensWithAnotherKeyTypeAndOptions() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let old = try Database(url: url, options: TestKeyKind.raw.makeOptions())
        try old.newConnection().readWrite { tx in try tx.setObject("v", forKey: "k", inCollection: nil) }
        try old.close()
        // Another key type for the same file is refused as a wrong key, not as a file in use.
        let refused = #expect(throws: DatabaseError.self) {
            try Database(url: url, options: TestKeyKind.passphrase.makeOptions())
        }
        #expect(refused?.code == .wrongKey)

        // A new file at the same path, with a passphrase and other options, while `old` lives on.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        var options = TestKeyKind.passphrase.makeOptions()
        options.synchronous = .full
        options.pageCacheKiB = 512
        let replaced = try Database(url: url, options: options)
        try replaced.newConnection().readWrite { tx in try tx.setObject("w", forKey: "k", inCollection: nil) }
        try replaced.close()
        let again = try Database(url: url, options: options)
        let connection = try again.newConnection()
        #expect(try connection.read { tx in try tx.object(forKey: "k", inCollection: nil, as: String.self) } == "w")
        #expect(try connection.pragmaSynchronous() == "FULL")
        try again.close()
        #expect(old.isClosed)
    }

    @Test func commitsPendingProxyAndPreferenceWrites() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let options = TestSupport.rawKeyOptions()
        let db = try Database(url: url, options: options)
        let proxy = try ConnectionProxy(database: db)
        let prefs = try Preferences(database: db, suite: "app")
        // Hold the write lock so nothing can be written before the close begins.
        let lock = try WriteLockHolder(db)
        for i in 0..<20 { proxy.setObject(i, forKey: "p\(i)", inCollection: "proxy") }
        prefs.set(true, forKey: "onboarded")
        prefs.set("dark", forKey: "theme")
        #expect(proxy.pendingChangeCount == 20)
        let closed = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Thread {
            outcome.withLock { $0 = Result { try db.close() } }
            closed.signal()
        }.start()
        // The close waits for the batch, which waits for the lock.
        #expect(!TestSupport.wait(closed, timeout: .milliseconds(50)))
        lock.release()
        #expect(TestSupport.wait(closed))
        try outcome.value?.get()
        #expect(db.isClosed)

        let reopened = try Database(url: url, options: options)
        let connection = try reopened.newConnection()
        try connection.read { tx throws in
            #expect(try tx.numberOfKeys(inCollection: "proxy") == 20)
            #expect(try tx.object(forKey: "p7", inCollection: "proxy", as: Int.self) == 7)
        }
        let fresh = try Preferences(database: reopened, suite: "app")
        #expect(fresh.bool(forKey: "onboarded"))
        #expect(fresh.string(forKey: "theme") == "dark")
        try reopened.close()
    }

    @Test func aFailedProxyBatchKeepsTheDatabaseOpen() throws {
        let test = try TestDatabase()
        let db = test.database
        // A string where the collection's codec expects a note: the batch fails every time.
        db.registerCodable(Note.self, forCollection: "refused")
        let proxy = try ConnectionProxy(database: db)
        proxy.setObject("v", forKey: "k", inCollection: "refused")
        #expect(throws: (any Error).self) { try db.close(timeout: .seconds(5)) }
        #expect(!db.isClosed)
        #expect(try proxy.object(forKey: "k", inCollection: "refused", as: String.self) == "v")
        // Dropping what can never be written lets the close go through.
        proxy.reset()
        try db.close()
        #expect(db.isClosed)
    }

    @Test func endsALongLivedReadTransaction() throws {
        let test = try TestDatabase()
        let reader = try test.connection()
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: nil) }
        _ = try reader.beginLongLivedReadTransaction()
        try writer.readWrite { tx in try tx.setObject(2, forKey: "a", inCollection: nil) }
        let db = test.database
        let result = TestSupport.runBounded(timeout: .seconds(10)) { try db.close(timeout: .seconds(5)) }
        #expect(throws: Never.self) { try #require(result).get() }
        #expect(!reader.isInLongLivedReadTransaction)
        #expect(Database.waitUntilClosed(test.url, timeout: .zero))
        #expect(throws: DatabaseError.self) { try reader.endLongLivedReadTransaction() }
        let reopened = try Database(url: test.url, options: test.options)
        #expect(
            try reopened.newConnection().read { tx in try tx.object(forKey: "a", inCollection: nil, as: Int.self) } == 2
        )
        try reopened.close()
    }

    @Test func waitsForARunningTransactionAndKeepsItsCommit() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let inside = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        let writeOutcome = Locked<Result<Void, any Error>?>(nil)
        Thread {
            let result = Result {
                try writer.readWrite { tx in
                    try tx.setObject("committed", forKey: "k", inCollection: nil)
                    inside.signal()
                    _ = finish.wait(timeout: .now() + 10)
                }
            }
            writeOutcome.withLock { $0 = result }
            writeDone.signal()
        }.start()
        #expect(TestSupport.wait(inside))
        let closeDone = DispatchSemaphore(value: 0)
        let closeOutcome = Locked<Result<Void, any Error>?>(nil)
        let db = test.database
        Thread {
            closeOutcome.withLock { $0 = Result { try db.close(timeout: .seconds(10)) } }
            closeDone.signal()
        }.start()
        // A transaction that starts while the close waits waits too, then fails with `.closed`.
        let late = try test.connection()
        #expect(TestSupport.wait { db.gate.isHeldExclusively })
        let lateDone = DispatchSemaphore(value: 0)
        let lateOutcome = Locked<Result<Void, any Error>?>(nil)
        Thread {
            lateOutcome.withLock { $0 = Result { try late.read { _ in } } }
            lateDone.signal()
        }.start()
        #expect(!TestSupport.wait(closeDone, timeout: .milliseconds(100)))
        #expect(!test.database.isClosed)
        finish.signal()
        #expect(TestSupport.wait(writeDone))
        #expect(TestSupport.wait(closeDone))
        #expect(TestSupport.wait(lateDone))
        try writeOutcome.value?.get()
        try closeOutcome.value?.get()
        let lateError = try #require(
            lateOutcome.value.flatMap { result -> (any Error)? in
                if case .failure(let error) = result { return error }
                return nil
            })
        #expect(Self.isClosedError(lateError, test.url))

        let reopened = try Database(url: test.url, options: test.options)
        #expect(reopened.snapshot == 1)
        #expect(
            try reopened.newConnection().read { tx in try tx.object(forKey: "k", inCollection: nil, as: String.self) }
                == "committed")
        try reopened.close()
    }

    @Test func givesUpWithBusyWhenATransactionOutlastsTheTimeout() throws {
        let test = try TestDatabase()
        let reader = try test.connection()
        let inside = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        Thread {
            _ = try? reader.read { _ in
                inside.signal()
                _ = finish.wait(timeout: .now() + 10)
            }
            readDone.signal()
        }.start()
        #expect(TestSupport.wait(inside))
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: DatabaseError.self) { try test.database.close(timeout: .milliseconds(100)) }
        #expect(error?.code == .busy)
        #expect(clock.now - start < .seconds(5))
        #expect(!test.database.isClosed)
        finish.signal()
        #expect(TestSupport.wait(readDone))
        // Still open: transactions go on, and a second close succeeds.
        try reader.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
        try test.database.close()
        #expect(test.database.isClosed)
    }

    @Test func closingTwiceAndConcurrentlyIsFine() async throws {
        let test = try TestDatabase()
        let db = test.database
        try await test.connection().readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await db.close() } }
            try await group.waitForAll()
        }
        #expect(db.isClosed)
        try await db.close()
        try TestSupport.runBounded { try db.close() }?.get()
        #expect(Database.waitUntilClosed(test.url, timeout: .zero))
    }

    @Test func closingInsideATransactionIsMisuse() throws {
        let test = try TestDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try test.connection().read { _ in try test.database.close() }
        }
        #expect(error?.code == .misuse)
        #expect(!test.database.isClosed)
    }

    @Test func closeUnderConcurrentWritersLosesNoCommittedWrite() throws {
        let test = try TestDatabase()
        let connections = try (0..<3).map { _ in try test.connection() }
        let committed = Locked<[String]>([])
        let group = DispatchGroup()
        for (index, connection) in connections.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                for i in 0..<200 {
                    let key = "c\(index)-\(i)"
                    do {
                        try connection.readWrite { tx in try tx.setObject(i, forKey: key, inCollection: "w") }
                        committed.withLock { $0.append(key) }
                    } catch {
                        return
                    }
                }
            }.start()
        }
        Thread.sleep(forTimeInterval: 0.02)
        try test.database.close()
        #expect(TestSupport.wait(group))
        let keys = Set(committed.value)
        let reopened = try Database(url: test.url, options: test.options)
        let stored = try reopened.newConnection().read { tx in Set(try tx.allKeys(inCollection: "w")) }
        #expect(stored == keys)
        try reopened.close()
    }

    @Test func releasingAClosedDatabaseDoesNotReleaseTheNewOne() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let options = TestSupport.rawKeyOptions()
        var old: Database? = try Database(url: url, options: options)
        try old?.close()
        let reopened = try Database(url: url, options: options)
        old = nil
        // The path is still the reopened instance's: a second open is refused.
        let error = #expect(throws: DatabaseError.self) { try Database(url: url, options: options) }
        #expect(error?.code == .misuse)
        #expect(!Database.waitUntilClosed(url, timeout: .zero))
        try reopened.close()
        #expect(Database.waitUntilClosed(url, timeout: .zero))
    }

    @Test func changeStreamsEnd() async throws {
        let test = try TestDatabase()
        let before = test.database.changes
        try await test.database.close()
        let after = test.database.changes
        let counts = try await TestSupport.withTimeout(.seconds(10)) {
            var counts = (0, 0)
            for await _ in before { counts.0 += 1 }
            for await _ in after { counts.1 += 1 }
            return [counts.0, counts.1]
        }
        #expect(counts == [0, 0])
    }
}
