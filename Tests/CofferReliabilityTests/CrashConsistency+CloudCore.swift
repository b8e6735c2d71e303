import Coffer
import CofferTestSupport
import Foundation
import Testing

/// The payload of the `cloud-queue` child's operations (mirrors `CloudQueueUpload` in coffer-stress).
struct StressUpload: CloudOperationPayload {
    static let operationType = "stressUpload"
    var item: Int64
}

extension CrashConsistency {
    /// What one verification of the cloud queue found.
    struct CloudQueueState {
        var next: Int64
        var done: [Int64]
        var queued: [Int64]
        var graphsAscending: Bool
        var restoredInOrder: Bool
        var violation: Int64?
        var integrity: [String]
    }

    /// Opens the queue with `key`, registers the extension as the child does, and reads it back.
    static func readCloudQueue(_ url: URL, key: Data) throws -> CloudQueueState {
        var options = DatabaseOptions()
        options.key = .raw(key)
        options.createIfMissing = false
        let state: CloudQueueState = try {
            let db = try TestSupport.open(url, options: options)
            for collection in ["items", "uploaded", "meta"] {
                db.registerCodable(Int64.self, forCollection: collection)
            }
            let pipeline = CloudCorePipeline(name: CloudCore.defaultPipelineName, maxConcurrentOperationCount: 1)
            let cloud = try CloudCore(
                pipelines: [pipeline], options: CloudCoreOptions(operationTypes: [StressUpload.self]))
            try db.register(cloud, withName: "cloud")
            let connection = try db.newConnection()
            let integrity = try connection.integrityCheck()
            let restored = pipeline.queuedOperations().flatMap { $0 }
            return try connection.read { tx in
                let next = try tx.object(forKey: "next", inCollection: "meta", as: Int64.self) ?? 0
                let violation = try tx.object(forKey: "violation", inCollection: "meta", as: Int64.self)
                var done: [Int64] = []
                try tx.enumerateKeysAndObjects(inCollection: "uploaded", as: Int64.self) { _, item, _ in
                    done.append(item)
                }
                let operations = try tx.cloudCore("cloud").operations()
                let graphs = operations.map(\.graphID)
                return CloudQueueState(
                    next: next, done: done.sorted(),
                    queued: operations.compactMap { $0.payload(as: StressUpload.self)?.item },
                    graphsAscending: zip(graphs, graphs.dropFirst()).allSatisfy { $0 < $1 },
                    restoredInOrder: restored.map(\.uuid) == operations.map(\.uuid)
                        && restored.allSatisfy { $0.status == .pending },
                    violation: violation, integrity: integrity)
            }
        }()
        try TestSupport.waitUntilClosed(url)
        return state
    }

    @Test func killedCloudQueueLosesNoOperationAndKeepsTheirOrder() throws {
        let seed = StressSettings.seed()
        print("CrashConsistency.cloudQueue seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        let kills = StressSettings.kills(ci: 50, stress: 400)
        let directory = TemporaryDirectory("coffer-crash-cloud")
        let url = directory.file("queue.sqlite")
        let key = TestSupport.randomKey()
        let environment = ["COFFER_STRESS_KEY": StressSettings.hex(key)]

        var acknowledged: Int64 = -1
        var completedSomewhere = 0
        for iteration in 0..<kills {
            let child = try StressChild(
                ["cloud-queue", "--database", url.path], environment: environment, logDirectory: directory.url)
            try child.waitUntilReady()
            pause(microseconds: Int.random(in: 0..<30_000, using: &rng))
            #expect(child.killNow(), "iteration \(iteration): the child exited on its own: \(child.errorOutput)")
            for line in child.lines where line.hasPrefix("added ") {
                acknowledged = max(acknowledged, Int64(line.dropFirst(6)) ?? -1)
            }

            let state = try Self.readCloudQueue(url, key: key)
            let context = "iteration \(iteration) seed \(seed)"
            #expect(state.integrity == ["ok"], "\(context)")
            #expect(state.next > acknowledged, "\(context): an acknowledged operation's commit is missing")
            // Every item has exactly one of a done row and a queued operation; done ones are a prefix.
            #expect(state.done == Array(0..<Int64(state.done.count)), "\(context): completions out of order or lost")
            #expect(state.queued == Array(Int64(state.done.count)..<state.next), "\(context): queue lost or duplicated")
            #expect(state.graphsAscending, "\(context): graphs out of commit order")
            #expect(state.restoredInOrder, "\(context): the pipeline restored another order or a running status")
            #expect(state.violation == nil, "\(context): an operation started before its predecessor completed")
            if !state.done.isEmpty { completedSomewhere += 1 }
        }
        print(
            "CrashConsistency.cloudQueue: \(kills) kills, last acknowledged \(acknowledged), \(completedSomewhere) with completions"
        )
        #expect(acknowledged > 0)
    }
}
