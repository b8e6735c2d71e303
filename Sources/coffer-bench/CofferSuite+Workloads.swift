import Coffer
import Foundation

extension CofferSuite {
    /// W1 and W2 on `connection`; both always run (untimed when not selected) so the file reaches the W1+W2 state.
    ///
    /// `suffix` names the variant (`b`: W1b and W2b, the binary codec's).
    /// - Throws: `DatabaseError` from writing.
    static func runWrites(
        _ connection: Connection, selected: Set<String>, records: Records, handles: Bool, suffix: String = "",
        into report: inout SuiteReport
    ) throws {
        let collection = Records.collection
        let users = records.users
        let insert = try Stopwatch.measure {
            try connection.readWrite { tx in
                if handles {
                    for user in users { try tx.set(user, forKey: user.id, in: Records.users) }
                } else {
                    for user in users { try tx.setObject(user, forKey: user.id, inCollection: collection) }
                }
            }
        }
        if selected.contains("W1" + suffix) {
            report.results.append(.init(id: "W1" + suffix, ops: users.count, seconds: insert.seconds, baselineID: "W1"))
        }
        let updates = records.updates
        let upsert = try Stopwatch.measure {
            for user in updates {
                try connection.readWrite { tx in
                    if handles {
                        try tx.set(user, forKey: user.id, in: Records.users)
                    } else {
                        try tx.setObject(user, forKey: user.id, inCollection: collection)
                    }
                }
            }
        }
        if selected.contains("W2" + suffix) {
            report.results.append(
                .init(id: "W2" + suffix, ops: updates.count, seconds: upsert.seconds, baselineID: "W2"))
        }
    }

    /// W3, W4 and W6 on the connection that wrote the records; `suffix` names the variant (`b`: W3b and W4b).
    /// - Throws: `DatabaseError` from reading; `BenchError` when a key is missing or W6 disagrees with W3.
    static func runReads(
        _ connection: Connection, selected: Set<String>, records: Records, handles: Bool, suffix: String = "",
        into report: inout SuiteReport
    ) throws {
        let keys = records.readKeyStrings
        if selected.contains("W3" + suffix) {
            let reads = try Stopwatch.measure {
                try handles ? Self.pointReadsThroughHandle(connection, keys) : Self.pointReads(connection, keys)
            }
            guard reads.value.found == keys.count else {
                throw BenchError(.checkMismatch, "Coffer:W3\(suffix) found \(reads.value.found) of \(keys.count) keys")
            }
            report.results.append(.init(id: "W3" + suffix, ops: keys.count, seconds: reads.seconds, baselineID: "W3"))
            report.checks.w3Checksum = reads.value.ageSum
        }
        if selected.contains("W4" + suffix) {
            let scan = try Stopwatch.measure {
                try handles ? Self.enumerateThroughHandle(connection) : Self.enumerate(connection)
            }
            report.results.append(
                .init(id: "W4" + suffix, ops: scan.value.count, seconds: scan.seconds, baselineID: "W4"))
            report.checks.w4Count = scan.value.count
            report.checks.w4Checksum = scan.value.ageSum
        }
        if selected.contains("W6") {
            report.results.append(
                try Self.measureCachedReads(connection, keys, expectedSum: records.expected.w3Checksum))
        }
    }

    /// W6: the W3 keys with the object cache on and unlimited, after one untimed warm-up pass; the cache is turned
    /// off again afterwards so later workloads read from SQLite.
    private static func measureCachedReads(
        _ connection: Connection, _ keys: [String], expectedSum: Int?
    ) throws -> WorkloadResult {
        connection.objectCacheLimit = 0
        connection.objectCacheEnabled = true
        defer { connection.objectCacheEnabled = false }
        _ = try Self.pointReads(connection, keys)
        let reads = try Stopwatch.measure { try Self.pointReads(connection, keys) }
        guard reads.value.found == keys.count, expectedSum.map({ $0 == reads.value.ageSum }) ?? true else {
            throw BenchError(
                .checkMismatch, "Coffer:W6 read \(reads.value.found) records, age sum \(reads.value.ageSum)")
        }
        return WorkloadResult(id: "W6", ops: keys.count, seconds: reads.seconds)
    }

    /// One read transaction reading and decoding every key; returns how many were found and their age sum.
    static func pointReads(_ connection: Connection, _ keys: [String]) throws -> (found: Int, ageSum: Int) {
        let collection = Records.collection
        return try connection.read { tx in
            var found = 0
            var ageSum = 0
            for key in keys {
                guard let user = try tx.object(forKey: key, inCollection: collection, as: User.self) else { continue }
                found += 1
                ageSum += user.age
            }
            return (found, ageSum)
        }
    }

    /// One read transaction enumerating and decoding the whole collection; returns the count and the age sum.
    static func enumerate(_ connection: Connection) throws -> (count: Int, ageSum: Int) {
        try connection.read { tx in
            var count = 0
            var ageSum = 0
            try tx.enumerateKeysAndObjects(inCollection: Records.collection, as: User.self) { _, user, _ in
                count += 1
                ageSum += user.age
            }
            return (count, ageSum)
        }
    }

    /// ``pointReads(_:_:)`` through `Records.users`.
    static func pointReadsThroughHandle(_ connection: Connection, _ keys: [String]) throws -> (found: Int, ageSum: Int)
    {
        try connection.read { tx in
            var found = 0
            var ageSum = 0
            for key in keys {
                guard let user = try tx.object(forKey: key, in: Records.users) else { continue }
                found += 1
                ageSum += user.age
            }
            return (found, ageSum)
        }
    }

    /// ``enumerate(_:)`` through `Records.users`.
    static func enumerateThroughHandle(_ connection: Connection) throws -> (count: Int, ageSum: Int) {
        try connection.read { tx in
            var count = 0
            var ageSum = 0
            try tx.enumerateKeysAndObjects(in: Records.users) { _, user, _ in
                count += 1
                ageSum += user.age
            }
            return (count, ageSum)
        }
    }
}
