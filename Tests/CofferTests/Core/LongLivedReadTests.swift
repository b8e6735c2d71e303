import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Long-lived read transactions: a connection stays on one snapshot between steps, and each
/// step returns the changesets it moved over.
@Suite struct LongLivedReadTests {
    private func value(_ connection: Connection, _ key: String) throws -> Int? {
        try connection.read { tx in try tx.object(forKey: key, inCollection: nil, as: Int.self) }
    }

    @Test(arguments: [true, false])
    func readsStayOnTheSnapshotUntilTheNextStep(cacheEnabled: Bool) throws {
        let test = try TestDatabase()
        let config = ConnectionConfig(objectCacheEnabled: cacheEnabled, metadataCacheEnabled: cacheEnabled)
        let reader = try test.connection(config: config)
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(0, forKey: "a", inCollection: nil) }

        #expect(!reader.isInLongLivedReadTransaction)
        let first = try reader.beginLongLivedReadTransaction()
        #expect(first.isEmpty)
        #expect(reader.isInLongLivedReadTransaction)
        #expect(reader.snapshot == 1)
        #expect(try value(reader, "a") == 0)

        try writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: nil) }
        try writer.readWrite { tx in try tx.setObject(2, forKey: "b", inCollection: nil) }
        #expect(test.database.snapshot == 3)
        // Every read, sync or async, still sees snapshot 1; so do enumerations and counts.
        #expect(try value(reader, "a") == 0)
        #expect(try value(reader, "b") == nil)
        #expect(reader.snapshot == 1)
        try reader.read { tx throws in
            #expect(tx.snapshot == 1)
            #expect(try tx.numberOfKeysInAllCollections() == 1)
            var keys: [String] = []
            try tx.enumerateKeys(inCollection: nil) { key, _ in keys.append(key) }
            #expect(keys == ["a"])
        }
        let asyncSaw = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        reader.asyncRead(
            { tx in
                asyncSaw.withLock { $0 = (try? tx.object(forKey: "a", inCollection: nil, as: Int.self)) ?? nil }
            }, completion: { _ in done.signal() })
        #expect(TestSupport.wait(done))
        #expect(asyncSaw.value == 0)
        // Flushing the caches does not move the connection either.
        reader.flushMemory()
        #expect(try value(reader, "a") == 0)

        // The next step returns both commits, in order, and moves to snapshot 3.
        let step = try reader.beginLongLivedReadTransaction()
        #expect(step.map(\.snapshot) == [2, 3])
        #expect(step[0].objectChanges == [CollectionKey(collection: "", key: "a")])
        #expect(step[1].insertedKeys == [CollectionKey(collection: "", key: "b")])
        #expect(reader.snapshot == 3)
        #expect(try value(reader, "a") == 1)
        #expect(try value(reader, "b") == 2)

        // Ending returns what was committed since the last step and follows the database again.
        try writer.readWrite { tx in try tx.setObject(3, forKey: "a", inCollection: nil) }
        #expect(try value(reader, "a") == 1)
        let ended = try reader.endLongLivedReadTransaction()
        #expect(ended.map(\.snapshot) == [4])
        #expect(!reader.isInLongLivedReadTransaction)
        #expect(try value(reader, "a") == 3)
        try writer.readWrite { tx in try tx.setObject(4, forKey: "a", inCollection: nil) }
        #expect(try value(reader, "a") == 4)
        #expect(reader.snapshot == 5)
        // Ending when none is open returns nothing.
        #expect(try reader.endLongLivedReadTransaction().isEmpty)
    }

    @Test func beginningAgainWithoutCommitsReturnsNothing() throws {
        let test = try TestDatabase()
        let reader = try test.connection()
        try test.connection().readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: nil) }
        #expect(try reader.beginLongLivedReadTransaction().isEmpty)
        #expect(try reader.beginLongLivedReadTransaction().isEmpty)
        #expect(try reader.endLongLivedReadTransaction().isEmpty)
        #expect(try reader.beginLongLivedReadTransaction().isEmpty)
        #expect(reader.snapshot == 1)
    }

    @Test func manyCommitsFromSeveralConnectionsAreReturnedInOrder() throws {
        let test = try TestDatabase()
        let reader = try test.connection()
        let writers = try (0..<3).map { _ in try test.connection() }
        _ = try reader.beginLongLivedReadTransaction()
        for round in 0..<9 {
            try writers[round % 3].readWrite { tx in try tx.setObject(round, forKey: "k\(round)", inCollection: nil) }
        }
        let changesets = try reader.beginLongLivedReadTransaction()
        #expect(changesets.map(\.snapshot) == Array(1...9))
        #expect(changesets.map(\.connectionID) == (0..<9).map { writers[$0 % 3].id })
        #expect(try reader.read { tx in try tx.numberOfKeysInAllCollections() } == 9)
    }

    @Test func readWriteOnTheConnectionEndsItImplicitly() throws {
        let test = try TestDatabase()
        let reader = try test.connection()
        let writer = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: nil) }
        #expect(try value(reader, "a") == nil)
        // The write sees the latest data, not the long-lived snapshot.
        let seenInWrite = try reader.readWrite { tx in
            let seen = try tx.object(forKey: "a", inCollection: nil, as: Int.self)
            try tx.setObject(2, forKey: "b", inCollection: nil)
            return seen
        }
        #expect(seenInWrite == 1)
        #expect(!reader.isInLongLivedReadTransaction)
        #expect(test.database.snapshot == 2)
        #expect(try value(reader, "b") == 2)
        // The changesets the implicit end collected come back with the next begin (the
        // connection's own commit is not among them).
        let next = try reader.beginLongLivedReadTransaction()
        #expect(next.map(\.snapshot) == [1])
        #expect(reader.snapshot == 2)
    }

    @Test func longLivedReadAcrossSiblingCacheUpdates() throws {
        let test = try TestDatabase()
        test.database.setObjectPolicy(.share, forCollection: "s")
        let reader = try test.connection()
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "a", inCollection: "s")
            try tx.setObject(1, forKey: "b", inCollection: "s")
        }
        _ = try reader.beginLongLivedReadTransaction()
        _ = try reader.read { tx in try tx.object(forKey: "a", inCollection: "s") }
        try writer.readWrite { tx in
            try tx.setObject(2, forKey: "a", inCollection: "s")
            try tx.removeObject(forKey: "b", inCollection: "s")
        }
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "s", as: Int.self) == 1)
            #expect(try tx.object(forKey: "b", inCollection: "s", as: Int.self) == 1)
        }
        _ = try reader.beginLongLivedReadTransaction()
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "s", as: Int.self) == 2)
            #expect(try tx.object(forKey: "b", inCollection: "s", as: Int.self) == nil)
        }
    }

    @Test func stepsInsideATransactionAreMisuse() throws {
        let test = try TestDatabase()
        let reader = try test.connection()
        try reader.read { _ throws in
            let begin = try #require(throws: DatabaseError.self) { try reader.beginLongLivedReadTransaction() }
            #expect(begin.code == .misuse)
            let end = try #require(throws: DatabaseError.self) { try reader.endLongLivedReadTransaction() }
            #expect(end.code == .misuse)
        }
    }
}
