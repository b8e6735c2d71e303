import Coffer
import Foundation

/// Coffer's storage engine alone: W1r, W2r, W3r and W4r store and read the pre-encoded JSON `Data` through the
/// identity codec (`registerData`), and parse `age` with the C baseline's own parser, so the work per record matches
/// the C baseline's and the ratio is the cost of Coffer's layers over the same SQLCipher calls.
///
/// W2r is not one of BENCHMARKS.md's workloads: it is W2 without the JSON encoding (C's W2 stores pre-encoded
/// bytes too), printed so W2's ratio can be split into the engine's share and the encoder's. W3l and W4l are W3r
/// and W4r through `withSerializedObject` and `enumerateKeysAndSerializedObjects`, which lend each row's bytes
/// instead of handing out a `Data`. W10f is W10 with both
/// writers committing at one fixed rate and the readers doing W3r's work (see `measureFixedRateConcurrency`).
///
/// As in `CofferSuite`, one connection with its caches off writes and then reads.
struct CofferRawSuite: BenchmarkSuite {
    let implementation = "CofferRaw"
    let workloads = [
        WorkloadInfo("W1r", baseline: "W1"), WorkloadInfo("W2r", baseline: "W2"), WorkloadInfo("W3r", baseline: "W3"),
        WorkloadInfo("W4r", baseline: "W4"), WorkloadInfo("W3l", baseline: "W3"), WorkloadInfo("W4l", baseline: "W4"),
        WorkloadInfo("W10f", baseline: "W10f"),
    ]

    /// Runs W1r and W2r (untimed when not selected, so the file reaches the W1+W2 state), W3r and W4r, then hashes
    /// the stored values.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a read misses a key or finds no age.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        let url = context.directory.appendingPathComponent(CofferStore.fileName)
        let records = context.records
        let collection = Records.collection
        var report = SuiteReport()
        // Built before any timer: the keys as Swift strings and the values as `Data`, as an application holds them.
        let keys = records.users.map(\.id)
        let values = records.values.dataArray()
        let updates = records.updateValues.dataArray()
        let readKeys = records.readKeyStrings

        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, codable: false, run: context.options)
            let connection = try database.newConnection(config: CofferStore.uncached)
            let handles = context.options.collectionHandles
            report.notes = [
                (key: "api", value: handles ? "CollectionHandle<Data>" : "collection-names"),
                (key: "codec", value: "registerData(identity)"), (key: "age", value: "cb_parse_age(as-C)"),
                (key: "w1r_to_w4r", value: "one-connection-writes-and-reads(as-C)"),
                (key: "object_cache", value: "off"),
            ]
            let insert = try Stopwatch.measure {
                try connection.readWrite { tx in
                    if handles {
                        for index in keys.indices { try tx.set(values[index], forKey: keys[index], in: Records.values) }
                    } else {
                        for index in keys.indices {
                            try tx.setObject(values[index], forKey: keys[index], inCollection: collection)
                        }
                    }
                }
            }
            if selected.contains("W1r") {
                report.results.append(.init(id: "W1r", ops: keys.count, seconds: insert.seconds, baselineID: "W1"))
            }
            let updateKeys = records.updateIndexes.map { User.key(index: $0) }
            let upsert = try Stopwatch.measure {
                for (key, value) in zip(updateKeys, updates) {
                    try connection.readWrite { tx in
                        if handles {
                            try tx.set(value, forKey: key, in: Records.values)
                        } else {
                            try tx.setObject(value, forKey: key, inCollection: collection)
                        }
                    }
                }
            }
            if selected.contains("W2r") {
                report.results.append(.init(id: "W2r", ops: updates.count, seconds: upsert.seconds, baselineID: "W2"))
            }
            if selected.contains("W3r") {
                let reads = try Stopwatch.measure { try Self.pointReads(connection, readKeys, handles: handles) }
                guard reads.value.found == readKeys.count else {
                    throw BenchError(.checkMismatch, "CofferRaw:W3r found \(reads.value.found) of \(readKeys.count)")
                }
                report.results.append(.init(id: "W3r", ops: readKeys.count, seconds: reads.seconds, baselineID: "W3"))
                report.checks.w3Checksum = reads.value.ageSum
            }
            if selected.contains("W4r") {
                let scan = try Stopwatch.measure { try Self.enumerate(connection, handles: handles) }
                report.results.append(.init(id: "W4r", ops: scan.value.count, seconds: scan.seconds, baselineID: "W4"))
                report.checks.w4Count = scan.value.count
                report.checks.w4Checksum = scan.value.ageSum
            }
            if selected.contains("W3l") {
                let reads = try Stopwatch.measure { try Self.pointReadsLent(connection, readKeys) }
                guard reads.value.found == readKeys.count else {
                    throw BenchError(.checkMismatch, "CofferRaw:W3l found \(reads.value.found) of \(readKeys.count)")
                }
                report.results.append(.init(id: "W3l", ops: readKeys.count, seconds: reads.seconds, baselineID: "W3"))
                report.checks.w3Checksum = reads.value.ageSum
            }
            if selected.contains("W4l") {
                let scan = try Stopwatch.measure { try Self.enumerateLent(connection) }
                report.results.append(.init(id: "W4l", ops: scan.value.count, seconds: scan.seconds, baselineID: "W4"))
                report.checks.w4Count = scan.value.count
                report.checks.w4Checksum = scan.value.ageSum
            }
            if selected.contains("W10f") {
                report.results += try measureFixedRateConcurrency(database, context: context)
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()

        let content = try CofferSuite.contentHash(url, context.configuration, codable: false, run: context.options)
        report.checks.contentFNV1a64 = content.hex
        report.checks.contentCount = content.count
        return report
    }

    /// One read transaction reading every key as `Data` and parsing its age.
    static func pointReads(_ connection: Connection, _ keys: [String], handles: Bool) throws -> (
        found: Int, ageSum: Int
    ) {
        let collection = Records.collection
        return try connection.read { tx in
            var found = 0
            var ageSum = 0
            for key in keys {
                let value =
                    try handles
                    ? tx.object(forKey: key, in: Records.values)
                    : tx.object(forKey: key, inCollection: collection, as: Data.self)
                guard let data = value else { continue }
                guard let age = RecordAge.parse(data) else {
                    throw BenchError(.checkMismatch, "CofferRaw: the value of \(key) has no age")
                }
                found += 1
                ageSum += age
            }
            return (found, ageSum)
        }
    }

    /// One read transaction enumerating every value as `Data` and parsing its age.
    static func enumerate(_ connection: Connection, handles: Bool) throws -> (count: Int, ageSum: Int) {
        try connection.read { tx in
            var count = 0
            var ageSum = 0
            // Two loops rather than one shared body: the string-keyed loop stays the one measured before handles.
            if handles {
                try tx.enumerateKeysAndObjects(in: Records.values) { key, data, _ in
                    guard let age = RecordAge.parse(data) else {
                        throw BenchError(.checkMismatch, "CofferRaw: the value of \(key) has no age")
                    }
                    count += 1
                    ageSum += age
                }
                return (count, ageSum)
            }
            try tx.enumerateKeysAndObjects(inCollection: Records.collection, as: Data.self) { key, data, _ in
                guard let age = RecordAge.parse(data) else {
                    throw BenchError(.checkMismatch, "CofferRaw: the value of \(key) has no age")
                }
                count += 1
                ageSum += age
            }
            return (count, ageSum)
        }
    }

    /// One read transaction enumerating every value's lent bytes and parsing its age, as C's W4 does.
    static func enumerateLent(_ connection: Connection) throws -> (count: Int, ageSum: Int) {
        try connection.read { tx in
            var count = 0
            var ageSum = 0
            try tx.enumerateKeysAndSerializedObjects(inCollection: Records.collection) { key, bytes, _ in
                guard let age = RecordAge.parse(bytes) else {
                    throw BenchError(.checkMismatch, "CofferRaw: the value of \(key) has no age")
                }
                count += 1
                ageSum += age
            }
            return (count, ageSum)
        }
    }

    /// One read transaction reading every key's lent bytes and parsing its age, as C's W3 does.
    static func pointReadsLent(_ connection: Connection, _ keys: [String]) throws -> (found: Int, ageSum: Int) {
        let collection = Records.collection
        return try connection.read { tx in
            var found = 0
            var ageSum = 0
            for key in keys {
                var age: Int?
                guard try tx.withSerializedObject(forKey: key, inCollection: collection, { age = RecordAge.parse($0) })
                else { continue }
                guard let age else { throw BenchError(.checkMismatch, "CofferRaw: the value of \(key) has no age") }
                found += 1
                ageSum += age
            }
            return (found, ageSum)
        }
    }
}
