import Coffer
import Foundation

/// W1 beside an ActionManager holding 10,000 pending items (issue 24's target: they add at most
/// 10% to a W1 insert run of unrelated rows).
///
/// Each variant inserts W1's records in one transaction on a database of its own, caches off, as
/// Coffer's W1 does. W1a0 has no schedule: the reference, measured in this suite so that the
/// ratios compare runs minutes apart at most. W1a registers an `ActionSchedule` over every
/// collection (so its grouping runs on each W1 row and finds no items), writes 10,000 rows whose
/// items fall due a day later, and runs an `ActionManager` on them while W1 runs; W1ar is the same
/// with the schedule limited to the items' collection, the configuration the article recommends,
/// and W1ap writes the pending rows without a schedule (what a larger file costs W1 alone).
/// The three variants run in turn, `repetitions` times, each round starting with the next
/// variant (so none always runs first), and each reports its fastest run with `vs_w1a0`, its
/// time over W1a0's.
struct CofferActionSuite: BenchmarkSuite {
    /// The collection of the pending items.
    static let itemsCollection = "pending"
    /// The pending items.
    static let pendingCount = 10_000
    /// How many times each variant runs.
    static let repetitions = 3

    /// A row with one action item a day ahead, which the benchmark never reaches.
    struct Pending: Codable, Sendable, Actionable {
        var due: Date

        var actionItems: [ActionItem] {
            [ActionItem(identifier: "expire", date: due, retryTimeout: 60) { _ in }]
        }
    }

    /// One variant: its id, whether it writes the pending rows, and the schedule's collections
    /// (nil: no schedule, no manager).
    struct Variant {
        let id: String
        let pending: Bool
        let allowed: AllowList<String>?
        let note: String
    }

    static let variants: [Variant] = [
        Variant(id: "W1a0", pending: false, allowed: nil, note: "no-schedule"),
        Variant(id: "W1ap", pending: true, allowed: nil, note: "10000-pending-rows,no-schedule"),
        Variant(
            id: "W1a", pending: true, allowed: .all, note: "schedule-over-all-collections,10000-pending,manager-running"
        ),
        Variant(
            id: "W1ar", pending: true, allowed: .only([itemsCollection]),
            note: "schedule-over-the-items-collection,10000-pending,manager-running"),
    ]

    let implementation = "CofferAction"
    let workloads = [
        WorkloadInfo("W1a0", baseline: "W1"), WorkloadInfo("W1ap", baseline: "W1"), WorkloadInfo("W1a", baseline: "W1"),
        WorkloadInfo("W1ar", baseline: "W1"),
    ]

    /// Runs the selected variants in turn.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when the manager ran an item.
    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        let variants = Self.variants.filter { selected.contains($0.id) || ($0.id == "W1a0" && !selected.isEmpty) }
        report.notes = variants.map { (key: $0.id.lowercased(), value: $0.note) }
        report.notes.append((key: "repetitions", value: "\(Self.repetitions),fastest-reported"))
        var fastest: [String: Double] = [:]
        for repetition in 0..<Self.repetitions {
            let start = repetition % max(1, variants.count)
            for variant in variants[start...] + variants[..<start] {
                let seconds = try run(variant, repetition: repetition, context: context)
                fastest[variant.id] = min(fastest[variant.id] ?? .infinity, seconds)
            }
        }
        let ops = context.records.users.count
        let reference = fastest["W1a0"]
        for variant in variants where selected.contains(variant.id) {
            guard let seconds = fastest[variant.id] else { continue }
            var result = WorkloadResult(id: variant.id, ops: ops, seconds: seconds, baselineID: "W1")
            if let reference, reference > 0 {
                result.extra.append((name: "vs_w1a0", value: String(format: "%.3f", seconds / reference)))
            }
            if variant.allowed != nil, let pendingOnly = fastest["W1ap"], pendingOnly > 0 {
                result.extra.append((name: "vs_w1ap", value: String(format: "%.3f", seconds / pendingOnly)))
            }
            report.results.append(result)
        }
        return report
    }

    /// One timed W1 insert of `variant` on a new database; its time in seconds.
    private func run(_ variant: Variant, repetition: Int, context: SuiteContext) throws -> Double {
        let url = context.directory.appendingPathComponent("action-\(variant.id)-\(repetition).sqlite")
        var seconds = 0.0
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            var manager: ActionManager?
            database.registerCodable(Pending.self, forCollection: Self.itemsCollection)
            if let allowed = variant.allowed {
                try database.register(ActionSchedule(allowedCollections: allowed), withName: "actions")
            }
            if variant.pending {
                let due = Date().addingTimeInterval(86_400)
                try database.newConnection().readWrite { tx in
                    for index in 0..<Self.pendingCount {
                        try tx.setObject(
                            Pending(due: due.addingTimeInterval(Double(index))), forKey: "p\(index)",
                            inCollection: Self.itemsCollection)
                    }
                }
            }
            if variant.allowed != nil {
                let started = try ActionManager(database: database, schedule: "actions")
                Self.wait { await started.idle() }
                manager = started
            }
            let connection = try database.newConnection(config: CofferStore.uncached)
            let users = context.records.users
            seconds =
                try Stopwatch.measure {
                    try connection.readWrite { tx in
                        for user in users { try tx.setObject(user, forKey: user.id, inCollection: Records.collection) }
                    }
                }
                .seconds
            if let manager {
                Self.wait { await manager.idle() }
                let held = try connection.read { tx in
                    try tx.extension("actions", as: ViewTransaction.self).numberOfItems(
                        inGroup: ActionSchedule.scheduleGroup)
                }
                Self.wait { await manager.stop() }
                guard held == Self.pendingCount else {
                    throw BenchError(
                        .checkMismatch, "CofferAction: the schedule holds \(held) of \(Self.pendingCount) items")
                }
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        return seconds
    }

    /// Blocks the calling thread (the harness's main thread, outside Swift's task pool) until `body` returns.
    private static func wait(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await body()
            done.signal()
        }
        done.wait()
    }
}
