import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A row that asks for one action: `due`, retried every `retry` seconds, until `done`.
struct Chore: Codable, Sendable, Equatable {
    var due: Date
    var retry: TimeInterval?
    var needsNetwork = false
    var done = false
}

/// What the work of an item saw when it ran.
struct ChoreRun: Sendable, Equatable {
    var key: String
    var attempt: Int
    var date: Date
    /// The clock's time when the work started.
    var ranAt: Date
}

/// Records every run, and lets a test hold runs until it opens the gate.
final class ChoreRecorder: Sendable {
    let clock: ManualActionScheduler
    private let state = Locked<(runs: [ChoreRun], inFlight: [String: Int], maxInFlight: Int)>(([], [:], 0))
    private let gate = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((true, []))
    /// The attempt from which the work marks its row done (nil: never).
    let finishOnAttempt: Int?

    init(clock: ManualActionScheduler, finishOnAttempt: Int? = nil) {
        self.clock = clock
        self.finishOnAttempt = finishOnAttempt
    }

    var runs: [ChoreRun] { state.withLock { $0.runs } }
    var keys: [String] { runs.map(\.key) }
    /// The most runs of one item that were going at once.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    func close() { gate.withLock { $0.isOpen = false } }

    private let runWaiters = Locked<[(count: Int, waiter: CheckedContinuation<Void, Never>)]>([])

    /// Returns once `count` runs have started (bounded by the caller's timeout).
    func waitForRuns(_ count: Int) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let reached = runWaiters.withLock { waiters in
                let reached = runs.count >= count
                if !reached { waiters.append((count, waiter)) }
                return reached
            }
            if reached { waiter.resume() }
        }
    }

    func open() {
        let waiters = gate.withLock { gate in
            gate.isOpen = true
            defer { gate.waiters = [] }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The schedule's handler: a `Chore`'s item, whose work records the run.
    var items: ActionItemsHandler {
        .object(Chore.self) { [self] row, items in
            guard !row.object.done else { return }
            items = [
                ActionItem(
                    identifier: "chore", date: row.object.due, retryTimeout: row.object.retry,
                    requiresNetwork: row.object.needsNetwork
                ) { run in try await self.perform(run) }
            ]
        }
    }

    func perform(_ run: ActionRun) async throws {
        state.withLock { state in
            state.runs.append(ChoreRun(key: run.key, attempt: run.attempt, date: run.date, ranAt: clock.now))
            state.inFlight[run.key, default: 0] += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight[run.key] ?? 0)
        }
        let count = runs.count
        let ready = runWaiters.withLock { waiters in
            let ready = waiters.filter { $0.count <= count }.map(\.waiter)
            waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isOpen = gate.withLock { gate in
                if !gate.isOpen { gate.waiters.append(waiter) }
                return gate.isOpen
            }
            if isOpen { waiter.resume() }
        }
        state.withLock { $0.inFlight[run.key, default: 0] -= 1 }
        if let finishOnAttempt, run.attempt >= finishOnAttempt {
            let connection = try run.database.newConnection()
            try await connection.readWrite { tx throws in
                guard var chore = try tx.object(forKey: run.key, inCollection: run.collection, as: Chore.self) else {
                    return
                }
                chore.done = true
                try tx.setObject(chore, forKey: run.key, inCollection: run.collection)
            }
        }
    }
}

/// A database with a chore schedule and a manager on a manual clock.
struct ActionFixture {
    static let epoch = Date(timeIntervalSinceReferenceDate: 800_000_000)

    let test: TestDatabase
    let clock: ManualActionScheduler
    let recorder: ChoreRecorder
    let writer: Connection

    init(finishOnAttempt: Int? = nil) throws {
        test = try TestDatabase()
        clock = ManualActionScheduler(now: Self.epoch)
        recorder = ChoreRecorder(clock: clock, finishOnAttempt: finishOnAttempt)
        test.database.registerCodable(Chore.self, forCollection: "chores")
        try test.database.register(
            ActionSchedule(items: recorder.items, allowedCollections: .only(["chores"])), withName: "actions")
        writer = try test.connection()
    }

    var database: Database { test.database }

    func manager(
        reachability: any NetworkReachability = .always, suspended: Bool = false
    ) throws -> ActionManager {
        try ActionManager(
            database: database, schedule: "actions", scheduler: clock, reachability: reachability,
            suspended: suspended)
    }

    /// Writes chores due `offset` seconds after the epoch.
    func add(_ chores: [String: (offset: TimeInterval, retry: TimeInterval?)], needsNetwork: Bool = false) throws {
        try writer.readWrite { tx throws in
            for (key, chore) in chores {
                try tx.setObject(
                    Chore(
                        due: Self.epoch.addingTimeInterval(chore.offset), retry: chore.retry, needsNetwork: needsNetwork
                    ),
                    forKey: key, inCollection: "chores")
            }
        }
    }

    /// Moves the clock to `offset` seconds after the epoch and waits for the manager to be idle.
    func advance(to offset: TimeInterval, _ manager: ActionManager) async throws {
        clock.advance(to: Self.epoch.addingTimeInterval(offset))
        try await settle(manager)
    }

    /// Waits, bounded, for the manager to be idle.
    func settle(_ manager: ActionManager) async throws {
        try await TestSupport.withTimeout(.seconds(30)) { await manager.idle() }
    }
}
