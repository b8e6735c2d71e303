import Coffer
import CofferTestSupport
import Foundation

extension Concurrency {
    /// One transfer, recording the committed balances under the new counter inside the transaction.
    static func transfer(_ connection: Connection, log: CommitLog, rng: inout SeededGenerator) throws {
        let from = Int.random(in: 0..<Ledger.accountCount, using: &rng)
        let to = (from + Int.random(in: 1..<Ledger.accountCount, using: &rng)) % Ledger.accountCount
        let amount = Int64.random(in: 1...50, using: &rng)
        try connection.readWrite { tx in
            var balances = try (0..<Ledger.accountCount).map {
                try tx.object(forKey: Ledger.accountKey($0), inCollection: Ledger.accounts, as: Int64.self) ?? .min
            }
            let counter = try tx.object(forKey: Ledger.counterKey, inCollection: Ledger.meta, as: Int64.self) ?? .min
            balances[from] -= amount
            balances[to] += amount
            try tx.setObject(balances[from], forKey: Ledger.accountKey(from), inCollection: Ledger.accounts)
            try tx.setObject(balances[to], forKey: Ledger.accountKey(to), inCollection: Ledger.accounts)
            try tx.setObject(counter + 1, forKey: Ledger.counterKey, inCollection: Ledger.meta)
            let committed = balances
            log.withLock { $0[counter + 1] = committed }
        }
    }

    /// Reads the whole ledger in one transaction and checks it against the commit log, the
    /// snapshot order and every index registered so far.
    static func checkRead(
        _ connection: Connection, log: CommitLog, registered: Locked<Set<String>>, last: inout UInt64,
        failures: Locked<[String]>, lagging: Locked<Int>, name: String
    ) throws {
        let indexes = registered.value
        let previous = last
        last = try connection.read { tx in
            if tx.snapshot < previous { failures.append("\(name): snapshot went back from \(previous) to \(tx.snapshot)") }
            let balances = try (0..<Ledger.accountCount).map {
                try tx.object(forKey: Ledger.accountKey($0), inCollection: Ledger.accounts, as: Int64.self) ?? .min
            }
            let counter = try tx.object(forKey: Ledger.counterKey, inCollection: Ledger.meta, as: Int64.self) ?? -1
            if balances.reduce(0, +) != Ledger.total {
                failures.append("\(name): balances sum to \(balances.reduce(0, +)) at snapshot \(tx.snapshot)")
            }
            if let committed = log.withLock({ $0[counter] }), committed != balances {
                failures.append("\(name): counter \(counter) shows \(balances), committed \(committed)")
            }
            for indexName in indexes {
                guard let index = tx.secondaryIndex(indexName) else {
                    failures.append("\(name): registered index \(indexName) missing")
                    continue
                }
                let sum = try index.performAggregateQuery(.aggregate("SUM(balance)")).int64Value
                if sum != Ledger.total { failures.append("\(name): \(indexName) sums to \(sum ?? -1)") }
            }
            return tx.snapshot
        }
        // Kept apart from `failures`: a known library issue (see the test).
        if connection.snapshot < last { lagging.withLock { $0 += 1 } }
    }

    /// Reads repeatedly inside long-lived read transactions: the snapshot and values stay put
    /// until the next `beginLongLivedReadTransaction`, which never moves backwards.
    static func longLivedReads(
        _ connection: Connection, log: CommitLog, running: @Sendable () -> Bool, failures: Locked<[String]>
    ) throws -> Int {
        var done = 0
        var previous: UInt64 = 0
        while running() {
            _ = try connection.beginLongLivedReadTransaction()
            let pinned = try connection.read { tx in
                (tx.snapshot, try tx.object(forKey: Ledger.counterKey, inCollection: Ledger.meta, as: Int64.self))
            }
            if pinned.0 < previous { failures.append("long-lived: snapshot went back") }
            previous = pinned.0
            for _ in 0..<20 where running() {
                let again = try connection.read { tx in
                    (tx.snapshot, try tx.object(forKey: Ledger.counterKey, inCollection: Ledger.meta, as: Int64.self))
                }
                if again != pinned {
                    failures.append("long-lived: moved from \(pinned) to \(again) without a new begin")
                }
                done += 1
            }
        }
        _ = try connection.endLongLivedReadTransaction()
        return done
    }

    /// Writes through a proxy: each value is visible through the proxy at once, and after
    /// `flush()` through a fresh uncached connection.
    static func proxyWrites(
        _ proxy: ConnectionProxy, fresh: Connection, running: @Sendable () -> Bool, failures: Locked<[String]>
    ) throws -> Int {
        var value: Int64 = 0
        while running() {
            value += 1
            proxy.setObject(value, forKey: "p", inCollection: "proxy")
            let seen = try proxy.object(forKey: "p", inCollection: "proxy", as: Int64.self)
            if seen != value { failures.append("proxy: wrote \(value), read \(seen ?? -1)") }
            if value.isMultiple(of: 25) {
                try proxy.flush()
                let stored = try fresh.read { try $0.object(forKey: "p", inCollection: "proxy", as: Int64.self) }
                if stored != value { failures.append("proxy: flushed \(value), stored \(stored ?? -1)") }
            }
        }
        try proxy.flush()
        if let error = proxy.lastWriteError { failures.append("proxy: write error \(error)") }
        return Int(value)
    }
}
