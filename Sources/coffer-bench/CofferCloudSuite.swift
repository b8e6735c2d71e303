import Coffer
import Foundation

/// CloudCore beside W1, and a queue drained by a no-op uploader (issue 25's targets: one operation
/// per W1 row at most doubles W1's insert time; 10,000 queued operations drain in ≤ 1 s).
///
/// W1c0 inserts W1's records alone (no extension), W1ce with a `CloudCore` registered but no
/// operation, and W1c with one JSON-encoded operation per record in the same transaction; each on
/// a database of its own with caches off (as Coffer's W1). They run in turn `repetitions` times,
/// rotated, and report their fastest run with `vs_w1c0`. D1b and D1s queue 10,000 operations in one commit (untimed), then time from
/// handing the pipeline a delegate until the last completion committed: D1b completes what has
/// started in one transaction per batch (the pipeline runs any number at once), D1s completes
/// each operation in its own transaction (the default limit of 8 running).
struct CofferCloudSuite: BenchmarkSuite {
    /// The payload of the benchmark's operations.
    struct UploadUser: CloudOperationPayload {
        static let operationType = "uploadUser"
        var key: String
    }

    /// Receives started operations and wakes the drain loop.
    final class NoOpUploader: CloudCorePipelineDelegate {
        let started = Locked<[UUID]>([])
        let signal = DispatchSemaphore(value: 0)

        func startOperation(_ operation: CloudOperation, in pipeline: CloudCorePipeline) {
            started.withLock { $0.append(operation.uuid) }
            signal.signal()
        }

        func take() -> [UUID] {
            started.withLock { uuids in
                defer { uuids = [] }
                return uuids
            }
        }
    }

    static let repetitions = 3
    static let drainCount = 10_000

    let implementation = "CofferCloud"
    let workloads = [
        WorkloadInfo("W1c0", baseline: "W1"), WorkloadInfo("W1ce", baseline: "W1"), WorkloadInfo("W1c", baseline: "W1"),
        WorkloadInfo("D1b"),
        WorkloadInfo("D1s"),
    ]

    /// Runs the selected workloads.
    /// - Throws: `DatabaseError`/`CloudCoreError` from Coffer; `BenchError` when a check fails.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        var fastest: [String: Double] = [:]
        let inserts = ["W1c0", "W1ce", "W1c"].filter {
            selected.contains($0) || ($0 == "W1c0" && (selected.contains("W1c") || selected.contains("W1ce")))
        }
        for repetition in 0..<(inserts.isEmpty ? 0 : Self.repetitions) {
            let start = repetition % inserts.count
            for id in inserts[start...] + inserts[..<start] {
                let seconds = try insert(id, repetition: repetition, context: context)
                fastest[id] = min(fastest[id] ?? .infinity, seconds)
            }
        }
        let ops = context.records.users.count
        for id in ["W1c0", "W1ce", "W1c"] where selected.contains(id) {
            guard let seconds = fastest[id] else { continue }
            var result = WorkloadResult(id: id, ops: ops, seconds: seconds, baselineID: "W1")
            if id != "W1c0", let reference = fastest["W1c0"], reference > 0 {
                result.extra.append((name: "vs_w1c0", value: String(format: "%.3f", seconds / reference)))
            }
            report.results.append(result)
        }
        for (id, batched) in [("D1b", true), ("D1s", false)] where selected.contains(id) {
            let seconds = try drain(batched: batched, context: context)
            var result = WorkloadResult(id: id, ops: Self.drainCount, seconds: seconds)
            result.extra.append((name: "completions", value: batched ? "batched" : "one-per-transaction"))
            report.results.append(result)
        }
        report.notes = [
            (key: "w1c", value: "one-operation-per-row,binary-payload,aes-none,repetitions=\(Self.repetitions),fastest")
        ]
        return report
    }

    private func register(_ database: Database, maxConcurrent: Int) throws -> CloudCore {
        let pipeline = CloudCorePipeline(
            name: CloudCore.defaultPipelineName, maxConcurrentOperationCount: maxConcurrent)
        let cloud = try CloudCore(pipelines: [pipeline], options: CloudCoreOptions(operationTypes: [UploadUser.self]))
        try database.register(cloud, withName: "cloud")
        return cloud
    }

    /// One timed W1 insert of variant `id`; its time in seconds.
    private func insert(_ id: String, repetition: Int, context: SuiteContext) throws -> Double {
        let url = context.directory.appendingPathComponent("cloud-\(id)-\(repetition).sqlite")
        let registers = id != "W1c0"
        let withOperations = id == "W1c"
        var seconds = 0.0
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            if registers { _ = try register(database, maxConcurrent: 8) }
            let connection = try database.newConnection(config: CofferStore.uncached)
            let users = context.records.users
            seconds =
                try Stopwatch.measure {
                    try connection.readWrite { tx in
                        let cloud = withOperations ? try tx.cloudCore("cloud") : nil
                        for user in users {
                            try tx.setObject(user, forKey: user.id, inCollection: Records.collection)
                            try cloud?.add(CloudOperation(UploadUser(key: user.id)))
                        }
                    }
                }
                .seconds
            let queued = try connection.read { tx in registers ? try tx.cloudCore("cloud").operations().count : 0 }
            guard queued == (withOperations ? users.count : 0) else {
                throw BenchError(.checkMismatch, "CofferCloud: \(queued) operations queued")
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        return seconds
    }

    /// Queues `drainCount` operations, then times draining them with a no-op uploader.
    private func drain(batched: Bool, context: SuiteContext) throws -> Double {
        let url = context.directory.appendingPathComponent("cloud-drain-\(batched).sqlite")
        var seconds = 0.0
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            let cloud = try register(database, maxConcurrent: batched ? 0 : 8)
            let connection = try database.newConnection(config: CofferStore.uncached)
            try connection.readWrite { tx in
                let queue = try tx.cloudCore("cloud")
                for index in 0..<Self.drainCount { try queue.add(CloudOperation(UploadUser(key: "u\(index)"))) }
            }
            let uploader = NoOpUploader()
            seconds =
                try Stopwatch.measure {
                    cloud.defaultPipeline.delegate = uploader
                    var completed = 0
                    while completed < Self.drainCount {
                        uploader.signal.wait()
                        let uuids = uploader.take()
                        if batched {
                            try connection.readWrite { tx in
                                let queue = try tx.cloudCore("cloud")
                                for uuid in uuids { try queue.complete(uuid) }
                            }
                        } else {
                            for uuid in uuids {
                                try connection.readWrite { tx in try tx.cloudCore("cloud").complete(uuid) }
                            }
                        }
                        completed += uuids.count
                    }
                }
                .seconds
            let left = try connection.read { tx in try tx.cloudCore("cloud").operations().count }
            guard left == 0, cloud.defaultPipeline.graphCount == 0 else {
                throw BenchError(.checkMismatch, "CofferCloud: \(left) operations left after the drain")
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        return seconds
    }
}
