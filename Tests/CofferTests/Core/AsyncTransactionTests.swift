import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The `async` overloads, the completion-callback forms, and `flushTransactions`.
@Suite struct AsyncTransactionTests {
    @Test(arguments: TestKeyKind.allCases)
    func asyncReadAndReadWrite(kind: TestKeyKind) async throws {
        let test = try TestDatabase(kind)
        let conn = try test.connection()
        let written = try await conn.readWrite { tx in
            try tx.setObject(Note(title: "a", body: "b"), forKey: "n", inCollection: nil)
            return "done"
        }
        #expect(written == "done")
        let note = try await conn.read { tx in try tx.object(forKey: "n", inCollection: nil, as: Note.self) }
        #expect(note == Note(title: "a", body: "b"))
        let other = try test.connection()
        let count = try await other.read { tx in try tx.numberOfKeysInAllCollections() }
        #expect(count == 1)
        #expect(test.database.snapshot == 1)
    }

    @Test func asyncReadWriteThatThrowsRollsBack() async throws {
        struct Abort: Error {}
        let test = try TestDatabase()
        let conn = try test.connection()
        await #expect(throws: Abort.self) {
            try await conn.readWrite { tx in
                try tx.setObject(1, forKey: "k", inCollection: nil)
                throw Abort()
            }
        }
        let exists = try await conn.read { tx in try tx.hasObject(forKey: "k", inCollection: nil) }
        #expect(!exists)
        #expect(test.database.snapshot == 0)
        await #expect(throws: Abort.self) { try await conn.read { _ in throw Abort() } }
    }

    @Test func asyncVacuum() async throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        try await conn.readWrite { tx in
            for index in 0..<100 { try tx.setObject(index, forKey: "k\(index)", inCollection: nil) }
        }
        try await conn.vacuum()
        let count = try await conn.read { tx in try tx.numberOfKeysInAllCollections() }
        #expect(count == 100)
    }

    @Test func manyConcurrentTasksOnSeveralConnections() async throws {
        let test = try TestDatabase()
        let connections = try (0..<4).map { _ in try test.connection() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let conn = connections[index % connections.count]
                group.addTask {
                    try await conn.readWrite { tx in
                        let counter = try tx.object(forKey: "counter", inCollection: nil, as: Int.self) ?? 0
                        try tx.setObject(counter + 1, forKey: "counter", inCollection: nil)
                        try tx.setObject(index, forKey: "k\(index)", inCollection: "items")
                    }
                    _ = try await conn.read { tx in try tx.numberOfKeys(inCollection: "items") }
                }
            }
            try await group.waitForAll()
        }
        let counter = try await connections[0].read { tx in
            try tx.object(forKey: "counter", inCollection: nil, as: Int.self)
        }
        #expect(counter == 40)
        #expect(test.database.snapshot == 40)
    }

    @Test func completionFormsReportSuccessErrorsAndRunOnTheGivenQueue() throws {
        struct Abort: Error {}
        let test = try TestDatabase()
        let conn = try test.connection()
        let queue = DispatchQueue(label: "test.completions")
        let marker = DispatchSpecificKey<String>()
        queue.setSpecific(key: marker, value: "test.completions")
        let results = Locked<[String]>([])
        let group = DispatchGroup()

        group.enter()
        conn.asyncReadWrite({ tx in try tx.setObject(1, forKey: "k", inCollection: nil) }, completionQueue: queue) {
            error in
            results.append("write:\(error == nil):\(DispatchQueue.getSpecific(key: marker) ?? "other")")
            group.leave()
        }
        group.enter()
        conn.asyncReadWrite({ _ in throw Abort() }) { error in
            results.append("failed-write:\(error is Abort)")
            group.leave()
        }
        group.enter()
        conn.asyncRead(
            { tx in
                let value = try tx.object(forKey: "k", inCollection: nil, as: Int.self)
                results.append("read-sees:\(String(describing: value))")
            }, completionQueue: queue
        ) { error in
            results.append("read:\(error == nil):\(DispatchQueue.getSpecific(key: marker) ?? "other")")
            group.leave()
        }
        group.enter()
        conn.asyncRead({ _ in throw Abort() }) { error in
            results.append("failed-read:\(error is Abort)")
            group.leave()
        }
        // No completion at all is fine too.
        conn.asyncReadWrite({ tx in try tx.setObject(2, forKey: "j", inCollection: nil) })
        conn.asyncRead({ _ in })
        #expect(TestSupport.wait(group))
        let done = DispatchSemaphore(value: 0)
        conn.flushTransactions { done.signal() }
        #expect(TestSupport.wait(done))
        let seen = Set(results.value)
        #expect(seen.contains("write:true:test.completions"))
        #expect(seen.contains("failed-write:true"))
        #expect(seen.contains("read-sees:Optional(1)"))
        #expect(seen.contains("read:true:test.completions"))
        #expect(seen.contains("failed-read:true"))
        #expect(test.database.snapshot == 2)
    }

    @Test func transactionsOnAConnectionRunInSubmissionOrder() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        let order = Locked<[String]>([])
        for index in 0..<10 {
            if index.isMultiple(of: 2) {
                conn.asyncReadWrite({ tx in
                    try tx.setObject(index, forKey: "last", inCollection: nil)
                    order.append("w\(index)")
                })
            } else {
                conn.asyncRead({ tx in
                    let last = try tx.object(forKey: "last", inCollection: nil, as: Int.self) ?? -1
                    order.append("r\(index):\(last)")
                })
            }
        }
        let done = DispatchSemaphore(value: 0)
        conn.flushTransactions(completionQueue: DispatchQueue(label: "test.flush")) { done.signal() }
        #expect(TestSupport.wait(done))
        #expect(order.value == ["w0", "r1:0", "w2", "r3:2", "w4", "r5:4", "w6", "r7:6", "w8", "r9:8"])
        // A synchronous transaction queues behind them as well.
        #expect(try conn.read { tx in try tx.object(forKey: "last", inCollection: nil, as: Int.self) } == 8)
    }

    @Test func asyncFlushTransactionsWaitsForQueuedWork() async throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        conn.asyncReadWrite({ tx in
            started.signal()
            _ = TestSupport.wait(release)
            try tx.setObject(1, forKey: "k", inCollection: nil)
        })
        conn.asyncReadWrite({ tx in try tx.setObject(2, forKey: "j", inCollection: nil) })
        #expect(TestSupport.wait(started))
        #expect(conn.pendingTransactionCount >= 1)
        release.signal()
        try await TestSupport.withTimeout { await conn.flushTransactions() }
        #expect(test.database.snapshot == 2)
        #expect(conn.pendingTransactionCount == 0)
    }

    @Test func defaultCompletionQueueIsServicedWithoutAMainRunLoop() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        let done = DispatchSemaphore(value: 0)
        conn.asyncReadWrite({ tx in try tx.setObject(1, forKey: "k", inCollection: nil) }) { _ in done.signal() }
        #expect(TestSupport.wait(done))
        let flushed = DispatchSemaphore(value: 0)
        conn.flushTransactions { flushed.signal() }
        #expect(TestSupport.wait(flushed))
    }

    @Test func droppingAConnectionWithQueuedWorkStillRunsIt() throws {
        let test = try TestDatabase()
        let done = DispatchSemaphore(value: 0)
        do {
            let conn = try test.connection()
            for index in 0..<5 {
                conn.asyncReadWrite({ tx in try tx.setObject(index, forKey: "k\(index)", inCollection: nil) })
            }
            conn.asyncRead({ _ in }, completion: { _ in done.signal() })
        }
        #expect(TestSupport.wait(done))
        #expect(test.database.snapshot == 5)
        #expect(try test.connection().read { tx in try tx.numberOfKeysInAllCollections() } == 5)
    }

    @Test func droppingALongLivedReaderReleasesItsSnapshot() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        do {
            let reader = try test.connection()
            _ = try reader.beginLongLivedReadTransaction()
            try writer.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
        }
        // With the reader gone nothing pins the WAL: a truncating checkpoint succeeds.
        for round in 0..<3 {
            try writer.readWrite { tx in try tx.setObject(round, forKey: "k", inCollection: nil) }
        }
        #expect(throws: Never.self) { try test.database.checkpoint(truncate: true) }
        #expect(test.database.state.withLock { $0.changesets.count } <= 1)
    }

    @Test func connectionIDsAreUnique() throws {
        let test = try TestDatabase()
        let ids = try (0..<10).map { _ in try test.connection().id }
        #expect(Set(ids).count == 10)
    }
}
