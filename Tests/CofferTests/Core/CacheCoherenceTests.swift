import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A connection's caches stay exact when sibling connections write, under every object policy.
@Suite struct CacheCoherenceTests {
    /// A database whose "c" collection stores `SharedCounter` objects and metadata under `policy`.
    private func setUp(_ policy: ObjectPolicy) throws -> (TestDatabase, cached: Connection, writer: Connection) {
        let test = try TestDatabase()
        test.database.registerCodable(SharedCounter.self, metadata: SharedCounter.self, forCollection: "c")
        test.database.registerCodable(SharedCounter.self, metadata: SharedCounter.self, forCollection: "d")
        test.database.setObjectPolicy(policy, forCollection: "c")
        test.database.setMetadataPolicy(policy, forCollection: "c")
        test.database.setObjectPolicy(policy, forCollection: "d")
        test.database.setMetadataPolicy(policy, forCollection: "d")
        #expect(test.database.objectPolicy(forCollection: "c") == policy)
        #expect(test.database.metadataPolicy(forCollection: "c") == policy)
        #expect(test.database.objectPolicy(forCollection: "elsewhere") == .containment)
        let writer = try test.connection()
        try writer.readWrite { tx in
            for key in ["a", "b", "c"] {
                try tx.setObject(SharedCounter(1), forKey: key, inCollection: "c", withMetadata: SharedCounter(10))
            }
            try tx.setObject(SharedCounter(1), forKey: "a", inCollection: "d", withMetadata: SharedCounter(10))
        }
        let cached = try test.connection()
        try warm(cached)
        try cached.read { tx throws in #expect(tx.core.objectCache.count == 4) }
        return (test, cached, writer)
    }

    /// Reads every row so the connection caches it.
    private func warm(_ connection: Connection) throws {
        try connection.read { tx in
            for (collection, key) in [("c", "a"), ("c", "b"), ("c", "c"), ("d", "a")] {
                _ = try tx.objectAndMetadata(forKey: key, inCollection: collection)
            }
        }
    }

    /// (object value, metadata value) of each row in "c" and "d", as `connection` sees it; -1 when absent.
    private func state(_ connection: Connection) throws -> [String: [Int]] {
        try connection.read { tx in
            var result: [String: [Int]] = [:]
            for (collection, key) in [("c", "a"), ("c", "b"), ("c", "c"), ("d", "a")] {
                let object = try tx.object(forKey: key, inCollection: collection, as: SharedCounter.self)
                let metadata = try tx.metadata(forKey: key, inCollection: collection, as: SharedCounter.self)
                result["\(collection)/\(key)"] = [object?.value ?? -1, metadata?.value ?? -1]
            }
            return result
        }
    }

    static let policies: [ObjectPolicy] = [.containment, .share, .copy]

    @Test(arguments: policies)
    func siblingSetsAndReplaces(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        try writer.readWrite { tx in
            try tx.setObject(SharedCounter(2), forKey: "a", inCollection: "c", withMetadata: SharedCounter(20))
            try tx.replaceObject(SharedCounter(3), forKey: "b", inCollection: "c")
            try tx.replaceMetadata(SharedCounter(30), forKey: "c", inCollection: "c")
        }
        #expect(try state(cached) == ["c/a": [2, 20], "c/b": [3, 10], "c/c": [1, 30], "d/a": [1, 10]])
        try writer.readWrite { tx in
            try tx.replaceMetadata(nil, forKey: "a", inCollection: "c")
            try tx.setObject(SharedCounter(4), forKey: "b", inCollection: "c")
        }
        #expect(try state(cached) == ["c/a": [2, -1], "c/b": [4, -1], "c/c": [1, 30], "d/a": [1, 10]])
    }

    @Test(arguments: policies)
    func siblingSeesTheLastOfRepeatedWrites(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        try writer.readWrite { tx in
            try tx.setObject(SharedCounter(2), forKey: "a", inCollection: "c", withMetadata: SharedCounter(20))
            try tx.replaceObject(SharedCounter(3), forKey: "a", inCollection: "c")
            try tx.setObject(SharedCounter(4), forKey: "a", inCollection: "c", withMetadata: SharedCounter(40))
            try tx.setObject(SharedCounter(5), forKey: "b", inCollection: "c")
            try tx.replaceMetadata(SharedCounter(50), forKey: "b", inCollection: "c")
        }
        #expect(try state(cached) == ["c/a": [4, 40], "c/b": [5, 50], "c/c": [1, 10], "d/a": [1, 10]])
    }

    @Test(arguments: policies)
    func siblingRemoves(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        try writer.readWrite { tx in try tx.removeObject(forKey: "a", inCollection: "c") }
        #expect(try state(cached) == ["c/a": [-1, -1], "c/b": [1, 10], "c/c": [1, 10], "d/a": [1, 10]])
        try warm(writer)
        try writer.readWrite { tx in try tx.removeObjects(forKeys: ["b", "zz"], inCollection: "c") }
        #expect(try state(cached) == ["c/a": [-1, -1], "c/b": [-1, -1], "c/c": [1, 10], "d/a": [1, 10]])
    }

    @Test(arguments: policies)
    func siblingRemovesACollection(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        try writer.readWrite { tx in try tx.removeAllObjects(inCollection: "c") }
        #expect(try state(cached) == ["c/a": [-1, -1], "c/b": [-1, -1], "c/c": [-1, -1], "d/a": [1, 10]])
        // Re-adding one row in the same transaction as a clear.
        try warm(cached)
        try writer.readWrite { tx in
            try tx.setObject(SharedCounter(5), forKey: "a", inCollection: "d")
            try tx.removeAllObjects(inCollection: "d")
            try tx.setObject(SharedCounter(6), forKey: "a", inCollection: "d", withMetadata: SharedCounter(60))
        }
        #expect(try state(cached)["d/a"] == [6, 60])
    }

    @Test(arguments: policies)
    func siblingRemovesEverything(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        try writer.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        #expect(try state(cached) == ["c/a": [-1, -1], "c/b": [-1, -1], "c/c": [-1, -1], "d/a": [-1, -1]])
        try writer.readWrite { tx in
            try tx.removeAllObjectsInAllCollections()
            try tx.setObject(SharedCounter(7), forKey: "b", inCollection: "c")
        }
        #expect(try state(cached)["c/b"] == [7, -1])
    }

    @Test(arguments: policies)
    func removeThenSetInOneTransaction(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        try writer.readWrite { tx in
            try tx.removeObject(forKey: "a", inCollection: "c")
            try tx.setObject(SharedCounter(8), forKey: "a", inCollection: "c", withMetadata: SharedCounter(80))
            try tx.setObject(SharedCounter(9), forKey: "b", inCollection: "c")
            try tx.removeObject(forKey: "b", inCollection: "c")
        }
        let seen = try state(cached)
        #expect(seen["c/a"] == [8, 80])
        #expect(seen["c/b"] == [-1, -1])
    }

    @Test(arguments: policies)
    func coherentWhenTheSiblingCatchesUpWhileIdle(policy: ObjectPolicy) throws {
        let (_, cached, writer) = try setUp(policy)
        for value in 2...6 {
            try writer.readWrite { tx in try tx.setObject(SharedCounter(value), forKey: "a", inCollection: "c") }
        }
        // Let the idle catch-ups queued by those commits run before the next read.
        let done = DispatchSemaphore(value: 0)
        cached.flushTransactions { done.signal() }
        #expect(TestSupport.wait(done))
        #expect(try state(cached)["c/a"] == [6, -1])
    }

    @Test func sharePolicyHandsSiblingsTheSameInstance() throws {
        let (_, cached, writer) = try setUp(.share)
        let stored = SharedCounter(42)
        try writer.readWrite { tx in try tx.setObject(stored, forKey: "a", inCollection: "c") }
        let seen = try cached.read { tx in try tx.object(forKey: "a", inCollection: "c", as: SharedCounter.self) }
        #expect(seen === stored)
    }

    @Test func copyPolicyHandsSiblingsCopies() throws {
        let (_, cached, writer) = try setUp(.copy)
        let copies = Locked(0)
        let stored = SharedCounter(42, copies: copies)
        try writer.readWrite { tx in try tx.setObject(stored, forKey: "a", inCollection: "c") }
        let seen = try #require(
            try cached.read { tx in try tx.object(forKey: "a", inCollection: "c", as: SharedCounter.self) })
        #expect(seen !== stored)
        #expect(seen.value == 42)
        #expect(copies.value >= 1)
        // The writer keeps the instance it stored.
        let own = try writer.read { tx in try tx.object(forKey: "a", inCollection: "c", as: SharedCounter.self) }
        #expect(own === stored)
    }

    @Test func containmentPolicyDecodesAgain() throws {
        let (_, cached, writer) = try setUp(.containment)
        let stored = SharedCounter(42)
        try writer.readWrite { tx in try tx.setObject(stored, forKey: "a", inCollection: "c") }
        let seen = try #require(
            try cached.read { tx in try tx.object(forKey: "a", inCollection: "c", as: SharedCounter.self) })
        #expect(seen !== stored)
        #expect(seen.value == 42)
    }

    @Test func copyPolicyWithValuesThatCannotBeCopiedFallsBackToContainment() throws {
        let test = try TestDatabase()
        test.database.setObjectPolicy(.copy, forCollection: "v")
        let writer = try test.connection()
        let cached = try test.connection()
        try writer.readWrite { tx in try tx.setObject("one", forKey: "k", inCollection: "v") }
        _ = try cached.read { tx in try tx.object(forKey: "k", inCollection: "v", as: String.self) }
        try writer.readWrite { tx in try tx.setObject("two", forKey: "k", inCollection: "v") }
        #expect(try cached.read { tx in try tx.object(forKey: "k", inCollection: "v", as: String.self) } == "two")
    }

    @Test func rolledBackWritesLeaveNoTraceInTheWritersCache() throws {
        let (_, _, writer) = try setUp(.containment)
        try writer.readWrite { tx in
            try tx.setObject(SharedCounter(99), forKey: "a", inCollection: "c", withMetadata: SharedCounter(990))
            try tx.removeObject(forKey: "b", inCollection: "c")
            tx.rollback()
        }
        #expect(try state(writer) == ["c/a": [1, 10], "c/b": [1, 10], "c/c": [1, 10], "d/a": [1, 10]])
        struct Abort: Error {}
        _ = try? writer.readWrite { tx in
            try tx.removeAllObjectsInAllCollections()
            throw Abort()
        }
        #expect(try state(writer) == ["c/a": [1, 10], "c/b": [1, 10], "c/c": [1, 10], "d/a": [1, 10]])
    }

    @Test func flushMemoryKeepsReadsCorrect() throws {
        let (_, cached, writer) = try setUp(.share)
        cached.flushMemory()
        try cached.read { tx throws in #expect(tx.core.objectCache.count == 0) }
        #expect(try state(cached)["c/a"] == [1, 10])
        try writer.readWrite { tx in try tx.setObject(SharedCounter(5), forKey: "a", inCollection: "c") }
        cached.flushMemory([.caches])
        #expect(try state(cached)["c/a"] == [5, -1])
        cached.flushMemory([.statements, .sqliteMemory])
        #expect(try state(cached)["c/a"] == [5, -1])
        // Inside a transaction, too (the statement cache is kept while statements may be in use).
        try cached.read { tx throws in
            var keys = 0
            try tx.enumerateKeys(inCollection: "c") { _, _ in
                cached.flushMemory()
                keys += 1
            }
            #expect(keys == 3)
            #expect(try tx.object(forKey: "b", inCollection: "c", as: SharedCounter.self)?.value == 1)
        }
    }

    @Test func cacheLimitsAreChangeable() throws {
        let test = try TestDatabase()
        try test.connection().readWrite { tx in
            for index in 0..<40 { try tx.setObject(index, forKey: "k\(index)", inCollection: "c", withMetadata: index) }
        }
        let conn = try test.connection()
        #expect(conn.objectCacheLimit == 250)
        #expect(conn.metadataCacheLimit == 250)
        conn.objectCacheLimit = 5
        conn.metadataCacheLimit = 7
        #expect(conn.objectCacheLimit == 5)
        try conn.read { tx throws in
            for index in 0..<40 {
                #expect(try tx.object(forKey: "k\(index)", inCollection: "c", as: Int.self) == index)
                #expect(try tx.metadata(forKey: "k\(index)", inCollection: "c", as: Int.self) == index)
            }
            #expect(tx.core.objectCache.count <= 5)
            #expect(tx.core.metadataCache.count <= 7)
            // Changed inside a transaction, the new limit applies at once.
            conn.objectCacheLimit = 0
            for index in 0..<40 { _ = try tx.object(forKey: "k\(index)", inCollection: "c") }
            #expect(tx.core.objectCache.count == 40)
        }
        conn.objectCacheLimit = -3
        #expect(conn.objectCacheLimit == 0)
    }

    @Test func disabledCachesStillReadCorrectly() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let conn = try test.connection()
        conn.objectCacheEnabled = false
        conn.metadataCacheEnabled = false
        #expect(!conn.objectCacheEnabled && !conn.metadataCacheEnabled)
        for value in 0..<3 {
            try writer.readWrite { tx in try tx.setObject(value, forKey: "k", inCollection: nil, withMetadata: -value) }
            try conn.read { tx throws in
                #expect(try tx.object(forKey: "k", inCollection: nil, as: Int.self) == value)
                #expect(try tx.metadata(forKey: "k", inCollection: nil, as: Int.self) == -value)
                try tx.enumerateRows(inCollection: nil) { _, _, _, _ in }
                #expect(tx.core.objectCache.count == 0)
                #expect(tx.core.metadataCache.count == 0)
            }
            try conn.readWrite { tx throws in
                try tx.setObject(value, forKey: "own", inCollection: nil)
                #expect(tx.core.objectCache.count == 0)
            }
        }
        // Turning the cache on again works.
        conn.objectCacheEnabled = true
        try conn.read { tx throws in
            _ = try tx.object(forKey: "k", inCollection: nil)
            #expect(tx.core.objectCache.count == 1)
        }
    }

    @Test func connectionDefaultsApplyToNewConnections() throws {
        let test = try TestDatabase()
        var defaults = test.database.connectionDefaults
        defaults.objectCacheLimit = 11
        defaults.metadataCacheEnabled = false
        test.database.connectionDefaults = defaults
        let conn = try test.connection()
        #expect(conn.objectCacheLimit == 11)
        #expect(!conn.metadataCacheEnabled)
        let custom = try test.connection(config: ConnectionConfig(objectCacheLimit: 3))
        #expect(custom.objectCacheLimit == 3)
        #expect(custom.metadataCacheEnabled)
    }
}
