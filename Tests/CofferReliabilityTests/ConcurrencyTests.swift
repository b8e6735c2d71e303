import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Concurrency stress: writers, readers (cached, tiny-cache, uncached), a long-lived reader, a
/// `ConnectionProxy` and concurrent `asyncRegister` of secondary indexes, all on one database for
/// a bounded time (5 s; 60 s with `STRESS=1`), checking invariants inside every read.
///
/// Run under ThreadSanitizer with
/// `swift test --sanitize=thread --scratch-path .build-tsan --filter CofferReliabilityTests.Concurrency`.
@Suite struct Concurrency {
    /// Every committed ledger state by counter value, written inside the transaction that commits
    /// it, so a reader that sees counter `c` finds the exact balances committed with it.
    typealias CommitLog = Locked<[Int64: [Int64]]>

    static func balancesIndex() -> SecondaryIndex {
        SecondaryIndex(
            setup: SecondaryIndexSetup([("balance", .integer)]),
            handler: .byObject(Int64.self) { _, values, _, _, balance in values["balance"] = balance },
            versionTag: "1", allowedCollections: .only([Ledger.accounts]))
    }

    @Test func readersWritersProxyAndRegistrationKeepEveryInvariant() throws {
        let test = try TestDatabase(.raw)
        let db = test.database
        for collection in [Ledger.accounts, Ledger.meta, "proxy"] { db.registerCodable(Int64.self, forCollection: collection) }
        let log = CommitLog([:])
        let setup = try test.connection()
        try setup.readWrite { tx in
            for index in 0..<Ledger.accountCount {
                try tx.setObject(Ledger.total / Int64(Ledger.accountCount), forKey: Ledger.accountKey(index), inCollection: Ledger.accounts)
            }
            try tx.setObject(Int64(0), forKey: Ledger.counterKey, inCollection: Ledger.meta)
        }
        log.withLock { $0[0] = Array(repeating: Ledger.total / Int64(Ledger.accountCount), count: Ledger.accountCount) }

        let seed = StressSettings.seed()
        print("Concurrency seed: \(seed)")
        let deadline = ContinuousClock.now + StressSettings.concurrencyDuration
        let failures = Locked<[String]>([])
        let counts = Locked<[String: Int]>([:])
        let registered = Locked<Set<String>>([])
        let lagging = Locked<Int>(0)
        let group = DispatchGroup()

        func spawn(_ name: String, _ body: @escaping @Sendable () throws -> Int) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let done = try body()
                    counts.withLock { $0[name, default: 0] += done }
                } catch {
                    failures.append("\(name): \(error)")
                }
            }
            thread.name = name
            thread.start()
        }
        let running: @Sendable () -> Bool = { ContinuousClock.now < deadline && failures.value.count < 20 }

        for writer in 0..<2 {
            let connection = try test.connection()
            spawn("writer\(writer)") {
                var rng = SeededGenerator(seed: seed &+ UInt64(writer))
                var done = 0
                while running() {
                    try Self.transfer(connection, log: log, rng: &rng)
                    done += 1
                }
                return done
            }
        }
        var small = ConnectionConfig()
        small.objectCacheLimit = 3
        var uncached = ConnectionConfig()
        uncached.objectCacheEnabled = false
        uncached.metadataCacheEnabled = false
        for (name, config) in [("reader-cached", ConnectionConfig()), ("reader-tinycache", small), ("reader-uncached", uncached)] {
            let connection = try test.connection(config: config)
            spawn(name) {
                var last: UInt64 = 0
                var done = 0
                while running() {
                    try Self.checkRead(connection, log: log, registered: registered, last: &last, failures: failures, lagging: lagging, name: name)
                    done += 1
                }
                return done
            }
        }
        let longLived = try test.connection()
        spawn("reader-longlived") {
            try Self.longLivedReads(longLived, log: log, running: running, failures: failures)
        }
        let proxyRead = try test.connection()
        let proxyWrite = try test.connection()
        let fresh = try test.connection(config: uncached)
        spawn("proxy") {
            try Self.proxyWrites(ConnectionProxy(readConnection: proxyRead, writeConnection: proxyWrite), fresh: fresh, running: running, failures: failures)
        }
        // Several registrations at once, from several threads, while everything above runs.
        for index in 0..<3 {
            spawn("register\(index)") {
                var config = ConnectionConfig()
                config.objectCacheLimit = 10 * (index + 1)
                let done = DispatchSemaphore(value: 0)
                db.asyncRegister(Self.balancesIndex(), withName: "balances\(index)", config: config) { error in
                    if let error { failures.append("register balances\(index): \(error)") } else {
                        registered.withLock { _ = $0.insert("balances\(index)") }
                    }
                    done.signal()
                }
                guard TestSupport.wait(done, timeout: .seconds(120)) else {
                    throw HarnessError("registration of balances\(index) did not finish")
                }
                return 1
            }
        }

        #expect(TestSupport.wait(group, timeout: StressSettings.concurrencyDuration + .seconds(120)), "a worker hung")
        let figures = counts.value
        print("Concurrency: \(figures.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        #expect(failures.value.isEmpty, "\(failures.value.prefix(10))")
        #expect(registered.value.count == 3)
        print("Concurrency: connection.snapshot read behind the connection's last transaction \(lagging.value) times")
        #expect(lagging.value == 0, "connection.snapshot went behind \(lagging.value) times")
        for name in ["writer0", "writer1", "reader-cached", "reader-tinycache", "reader-uncached", "proxy"] {
            #expect((figures[name] ?? 0) > 0, "\(name) did no work")
        }
        // After the dust settles: every index matches the rows exactly.
        try setup.read { tx in
            for name in registered.value {
                let index = try #require(tx.secondaryIndex(name))
                #expect(try index.count(matching: .matchingAll) == Ledger.accountCount)
                #expect(try index.performAggregateQuery(.aggregate("SUM(balance)")).int64Value == Ledger.total)
            }
        }
    }
}
