import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Re-entrant transactions throw `misuse` instead of deadlocking.
///
/// Every test runs its body on a
/// background thread and waits for it with a timeout, so a deadlock fails the test instead of
/// hanging the suite.
@Suite struct MisuseTests {
    /// Runs `body` bounded in time and returns the `DatabaseError` it produced.
    private func misuse(
        _ body: @escaping @Sendable () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) -> DatabaseError? {
        guard let outcome = TestSupport.runBounded(timeout: .seconds(10), body) else {
            Issue.record("deadlocked: the body did not return within the timeout", sourceLocation: sourceLocation)
            return nil
        }
        switch outcome {
        case .success:
            Issue.record("expected a misuse error, but the body succeeded", sourceLocation: sourceLocation)
            return nil
        case .failure(let error):
            guard let error = error as? DatabaseError else {
                Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                return nil
            }
            #expect(error.code == .misuse, "\(error)", sourceLocation: sourceLocation)
            return error
        }
    }

    @Test func readInsideReadOnTheSameConnection() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        _ = misuse {
            try conn.read { _ in
                try conn.read { _ in }
            }
        }
        // The connection still works afterwards.
        #expect(try conn.read { tx in try tx.numberOfKeysInAllCollections() } == 0)
    }

    @Test func readWriteInsideReadOnTheSameConnection() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        _ = misuse {
            try conn.read { _ in
                try conn.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
            }
        }
        #expect(test.database.snapshot == 0)
        try conn.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
        #expect(test.database.snapshot == 1)
    }

    @Test func anyTransactionInsideReadWriteOnTheSameConnection() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        _ = misuse {
            try conn.readWrite { _ in try conn.read { _ in } }
        }
        _ = misuse {
            try conn.readWrite { _ in try conn.readWrite { _ in } }
        }
        _ = misuse {
            try conn.readWrite { _ in _ = try conn.beginLongLivedReadTransaction() }
        }
        _ = misuse {
            try conn.readWrite { _ in try conn.vacuum() }
        }
    }

    @Test func readWriteOnAnotherConnectionInsideReadWrite() throws {
        let test = try TestDatabase()
        let first = try test.connection()
        let second = try test.connection()
        _ = misuse {
            try first.readWrite { tx in
                try tx.setObject(1, forKey: "outer", inCollection: nil)
                try second.readWrite { tx in try tx.setObject(2, forKey: "inner", inCollection: nil) }
            }
        }
        // The outer write rolled back (the misuse error propagated out of its block).
        #expect(test.database.snapshot == 0)
        // Both connections still work.
        try second.readWrite { tx in try tx.setObject(2, forKey: "inner", inCollection: nil) }
        try first.readWrite { tx in try tx.setObject(1, forKey: "outer", inCollection: nil) }
        #expect(try first.read { tx in try tx.numberOfKeysInAllCollections() } == 2)
    }

    @Test func vacuumOnAnotherConnectionInsideReadWrite() throws {
        let test = try TestDatabase()
        let first = try test.connection()
        let second = try test.connection()
        _ = misuse {
            try first.readWrite { _ in try second.vacuum() }
        }
    }

    @Test func nestingAcrossConnectionsThatIsAllowed() throws {
        let test = try TestDatabase()
        let first = try test.connection()
        let second = try test.connection()
        try first.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
        let outcome = TestSupport.runBounded {
            // A read on another connection inside a read, a write inside a read of another
            // connection, and a read of another connection inside a write are all fine.
            try first.read { _ in
                let inner = try second.read { tx in try tx.object(forKey: "k", inCollection: nil, as: Int.self) }
                try second.readWrite { tx in try tx.setObject(2, forKey: "k2", inCollection: nil) }
                return inner
            } ?? -1
        }
        #expect(try outcome?.get() == 1)
        let insideWrite = TestSupport.runBounded {
            try first.readWrite { tx in
                try tx.setObject(3, forKey: "k3", inCollection: nil)
                // The other connection reads the last commit, not this open write.
                return try second.read { tx in try tx.hasObject(forKey: "k3", inCollection: nil) }
            }
        }
        #expect(try insideWrite?.get() == false)
    }

    @Test func misuseMessagesSayWhatWentWrong() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        let error = misuse { try conn.read { _ in try conn.read { _ in } } }
        #expect(error?.message.contains("same connection") == true)
    }

    @Test func asyncReadWriteQueuedFromInsideAReadRunsAfterIt() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        let done = DispatchSemaphore(value: 0)
        let outcome = TestSupport.runBounded {
            try conn.read { _ in
                // Queuing is not nesting: it runs once the read has finished.
                conn.asyncReadWrite(
                    { tx in try tx.setObject(1, forKey: "k", inCollection: nil) },
                    completion: { error in
                        if error == nil { done.signal() }
                    })
            }
        }
        #expect(outcome != nil)
        #expect(TestSupport.wait(done))
        #expect(test.database.snapshot == 1)
    }

    /// A write on connection A reads through connection B while B has a write queued behind A's:
    /// B's queue is blocked waiting for the write lock A holds, so A's read on B can never start.
    @Test(
        .disabled(
            "deadlocks: a connection's queue is held while it waits for the write lock (lock-order inversion, as in YapDatabase); needs a design change"
        ))
    func readOnAConnectionWhoseQueueWaitsForTheWriteLock() throws {
        let test = try TestDatabase()
        let first = try test.connection()
        let second = try test.connection()
        let writeStarted = DispatchSemaphore(value: 0)
        let queued = DispatchSemaphore(value: 0)
        let outcome = TestSupport.runBounded(timeout: .seconds(5)) {
            try first.readWrite { tx in
                try tx.setObject(1, forKey: "a", inCollection: nil)
                writeStarted.signal()
                second.asyncReadWrite({ tx in try tx.setObject(2, forKey: "b", inCollection: nil) })
                // Give B's queue a moment to pick the write up and block on the write lock.
                _ = queued.wait(timeout: .now() + 0.2)
                return try second.read { tx in try tx.hasObject(forKey: "a", inCollection: nil) }
            }
        }
        #expect(TestSupport.wait(writeStarted))
        #expect(outcome != nil, "deadlock: read on a connection whose queue waits for the write lock")
    }
}
