import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// ActionManager on a manual clock: items run when due, in order, again after their retry
/// timeout, never twice at once, not while suspended or waiting for the network, not after
/// their row went, and from the file after a restart.
@Suite(.timeLimit(.minutes(2))) struct ActionManagerTests {
    @Test func itemsRunWhenDueInDateOrder() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["late": (30, nil), "early": (10, nil), "middle": (20, nil)])
        let manager = try fixture.manager()
        try await fixture.settle(manager)
        #expect(fixture.recorder.runs.isEmpty)
        try await fixture.advance(to: 9.9, manager)
        #expect(fixture.recorder.runs.isEmpty)
        try await fixture.advance(to: 10, manager)
        #expect(fixture.recorder.keys == ["early"])
        try await fixture.advance(to: 25, manager)
        #expect(fixture.recorder.keys == ["early", "middle"])
        try await fixture.advance(to: 100, manager)
        #expect(fixture.recorder.keys == ["early", "middle", "late"])
        #expect(fixture.recorder.runs.allSatisfy { $0.ranAt >= $0.date })
        // An item without a retry timeout runs once.
        try await fixture.advance(to: 1_000, manager)
        #expect(fixture.recorder.runs.count == 3)
        // The manager is armed for nothing more.
        #expect(fixture.clock.scheduledDates.isEmpty)
        await manager.stop()
    }

    @Test func aRowWrittenWhileRunningIsScheduledToo() async throws {
        let fixture = try ActionFixture()
        let manager = try fixture.manager()
        try await fixture.settle(manager)
        try fixture.add(["now": (-5, nil), "soon": (5, nil)])
        try await fixture.settle(manager)
        #expect(fixture.recorder.keys == ["now"])
        #expect(fixture.clock.scheduledDates == [ActionFixture.epoch.addingTimeInterval(5)])
        try await fixture.advance(to: 5, manager)
        #expect(fixture.recorder.keys == ["now", "soon"])
        await manager.stop()
    }

    @Test func anItemRunsAgainAfterItsRetryTimeoutUntilTheRowStopsReturningIt() async throws {
        let fixture = try ActionFixture(finishOnAttempt: 3)
        try fixture.add(["upload": (10, 60)])
        let manager = try fixture.manager()
        try await fixture.advance(to: 10, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1])
        try await fixture.advance(to: 69, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1])
        try await fixture.advance(to: 70, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 2])
        try await fixture.advance(to: 130, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 2, 3])
        // The third run marked the row done: no more runs.
        try await fixture.advance(to: 1_000, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 2, 3])
        await manager.stop()
    }

    @Test func aRescheduledItemIsANewItem() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["refresh": (10, nil)])
        let manager = try fixture.manager()
        try await fixture.advance(to: 10, manager)
        // Same identifier, later date: it runs again at the new date, as a first attempt.
        try fixture.add(["refresh": (50, nil)])
        try await fixture.advance(to: 49, manager)
        #expect(fixture.recorder.runs.count == 1)
        try await fixture.advance(to: 50, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 1])
        #expect(fixture.recorder.runs.map(\.date) == [10, 50].map { ActionFixture.epoch.addingTimeInterval($0) })
        await manager.stop()
    }

    @Test func aRunIsNeverDoubledWhileItIsStillGoing() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["slow": (0, 10)])
        fixture.recorder.close()
        let manager = try fixture.manager()
        let recorder = fixture.recorder
        try await TestSupport.withTimeout { await recorder.waitForRuns(1) }
        // The first run holds; its retries fall due three times meanwhile.
        fixture.clock.advance(to: ActionFixture.epoch.addingTimeInterval(10))
        fixture.clock.advance(to: ActionFixture.epoch.addingTimeInterval(20))
        fixture.clock.advance(to: ActionFixture.epoch.addingTimeInterval(30))
        fixture.recorder.open()
        try await fixture.settle(manager)
        // The retry due while the first run went on starts once it ended, and only once.
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 2])
        #expect(fixture.recorder.maxInFlight == 1)
        try await fixture.advance(to: 40, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 2, 3])
        await manager.stop()
    }

    @Test func suspendAndResumeCount() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["a": (10, nil)])
        let manager = try fixture.manager(suspended: true)
        #expect(manager.isSuspended)
        #expect(manager.suspendCount == 1)
        #expect(manager.suspend() == 2)
        #expect(manager.suspend(count: 2) == 4)
        try await fixture.advance(to: 20, manager)
        #expect(fixture.recorder.runs.isEmpty)
        #expect(fixture.clock.scheduledDates.isEmpty)
        for expected in [3, 2, 1] {
            #expect(manager.resume() == expected)
            try await fixture.settle(manager)
            #expect(fixture.recorder.runs.isEmpty)
        }
        #expect(manager.resume() == 0)
        try await fixture.settle(manager)
        #expect(fixture.recorder.keys == ["a"])
        #expect(!manager.isSuspended)
        // A resume with nothing to match stays at zero.
        #expect(manager.resume() == 0)
        #expect(manager.suspendCount == 0)
        await manager.stop()
    }

    @Test func itemsThatNeedTheNetworkWaitForIt() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["online": (10, nil)], needsNetwork: true)
        try fixture.add(["offline": (10, nil)])
        let reachability = ManualReachability(isReachable: false)
        let manager = try fixture.manager(reachability: reachability)
        try await fixture.advance(to: 10, manager)
        #expect(fixture.recorder.keys == ["offline"])
        try await fixture.advance(to: 100, manager)
        #expect(fixture.recorder.keys == ["offline"])
        reachability.set(reachable: true)
        try await fixture.settle(manager)
        #expect(fixture.recorder.keys == ["offline", "online"])
        #expect(fixture.recorder.runs.last?.ranAt == ActionFixture.epoch.addingTimeInterval(100))
        // Losing the network again does not run anything twice.
        reachability.set(reachable: false)
        reachability.set(reachable: true)
        try await fixture.settle(manager)
        #expect(fixture.recorder.runs.count == 2)
        await manager.stop()
    }

    @Test func aRetryThatNeedsTheNetworkWaitsForIt() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["sync": (0, 30)], needsNetwork: true)
        let reachability = ManualReachability(isReachable: true)
        let manager = try fixture.manager(reachability: reachability)
        try await fixture.advance(to: 0, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1])
        reachability.set(reachable: false)
        try await fixture.advance(to: 90, manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1])
        reachability.set(reachable: true)
        try await fixture.settle(manager)
        #expect(fixture.recorder.runs.map(\.attempt) == [1, 2])
        await manager.stop()
    }

    @Test func removingARowDropsItsItems() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["kept": (10, nil), "removed": (10, nil), "retried": (5, 10)])
        let manager = try fixture.manager()
        try await fixture.advance(to: 5, manager)
        #expect(fixture.recorder.keys == ["retried"])
        try await fixture.writer.readWrite { tx throws in
            try tx.removeObjects(forKeys: ["removed", "retried"], inCollection: "chores")
        }
        try await fixture.advance(to: 100, manager)
        #expect(fixture.recorder.keys == ["retried", "kept"])
        await manager.stop()
    }

    @Test func clearingTheCollectionDropsItsItems() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["a": (10, nil), "b": (0, 5)])
        let manager = try fixture.manager()
        try await fixture.advance(to: 0, manager)
        #expect(fixture.recorder.keys == ["b"])
        try await fixture.writer.readWrite { tx throws in try tx.removeAllObjects(inCollection: "chores") }
        try await fixture.advance(to: 100, manager)
        #expect(fixture.recorder.keys == ["b"])
        await manager.stop()
    }

    @Test func aRestartPicksTheScheduleUpFromTheFile() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("actions.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        let clock = ManualActionScheduler(now: ActionFixture.epoch)
        let recorder = ChoreRecorder(clock: clock, finishOnAttempt: 1)
        let handlerCalls = Locked(0)
        let counted = ActionItemsHandler.object(Chore.self) { row, items in
            handlerCalls.withLock { $0 += 1 }
            try recorder.items.body(
                row.transaction, &items, CollectionKey(collection: row.collection, key: row.key),
                LazyValue(row.object), LazyValue(nil))
        }
        func open() throws -> Database {
            let database = try TestSupport.open(url, options: options)
            database.registerCodable(Chore.self, forCollection: "chores")
            try database.register(
                ActionSchedule(items: counted, allowedCollections: .only(["chores"])), withName: "actions")
            return database
        }
        do {
            let database = try open()
            try await database.newConnection().readWrite { tx throws in
                for (key, offset) in [("a", 10.0), ("b", 20.0), ("c", 30.0)] {
                    try tx.setObject(
                        Chore(due: ActionFixture.epoch.addingTimeInterval(offset)), forKey: key, inCollection: "chores")
                }
            }
            let manager = try ActionManager(database: database, schedule: "actions", scheduler: clock)
            clock.advance(to: ActionFixture.epoch.addingTimeInterval(10))
            try await TestSupport.withTimeout { await manager.idle() }
            #expect(recorder.keys == ["a"])
            await manager.stop()
            try await database.close()
        }
        clock.advance(to: ActionFixture.epoch.addingTimeInterval(25))
        handlerCalls.withLock { $0 = 0 }
        let database = try open()
        // Registered again with the same version: the schedule comes from the file, not from the rows.
        #expect(handlerCalls.withLock { $0 } == 0)
        let manager = try ActionManager(database: database, schedule: "actions", scheduler: clock)
        try await TestSupport.withTimeout { await manager.idle() }
        #expect(recorder.keys == ["a", "b"])
        clock.advance(to: ActionFixture.epoch.addingTimeInterval(30))
        try await TestSupport.withTimeout { await manager.idle() }
        #expect(recorder.keys == ["a", "b", "c"])
        await manager.stop()
        try await database.close()
    }

    @Test func tenThousandItemsRunOnceEachAndNeverEarly() async throws {
        let fixture = try ActionFixture()
        var generator = SeededGenerator(seed: 24)
        var due: [String: TimeInterval] = [:]
        for index in 0..<10_000 { due["item\(index)"] = Double(Int.random(in: 1...1_000, using: &generator)) }
        let rows = due
        try await fixture.writer.readWrite { tx throws in
            for (key, offset) in rows {
                try tx.setObject(
                    Chore(due: ActionFixture.epoch.addingTimeInterval(offset)), forKey: key, inCollection: "chores")
            }
        }
        let manager = try fixture.manager()
        try await fixture.settle(manager)
        #expect(fixture.recorder.runs.isEmpty)
        for step in stride(from: 10.0, through: 1_000, by: 10) {
            try await fixture.advance(to: step, manager)
            let runs = fixture.recorder.runs
            let expected = due.values.filter { $0 <= step }.count
            #expect(runs.count == expected, "at \(step)")
            #expect(runs.allSatisfy { $0.ranAt >= $0.date && $0.date <= ActionFixture.epoch.addingTimeInterval(step) })
        }
        let runs = fixture.recorder.runs
        #expect(runs.count == 10_000)
        #expect(Set(runs.map(\.key)).count == 10_000)
        #expect(runs.allSatisfy { $0.date == ActionFixture.epoch.addingTimeInterval(due[$0.key] ?? -1) })
        await manager.stop()
    }

    @Test func theDefaultHandlerReadsActionableObjects() async throws {
        let test = try TestDatabase()
        test.database.registerCodable(Reminder.self, forCollection: "reminders")
        try test.database.register(ActionSchedule(), withName: "actions")
        let clock = ManualActionScheduler(now: ActionFixture.epoch)
        let manager = try ActionManager(database: test.database, schedule: "actions", scheduler: clock)
        try await test.connection().readWrite { tx throws in
            try tx.setObject(
                Reminder(text: "water the plants", at: ActionFixture.epoch), forKey: "r1", inCollection: "reminders")
            try tx.setObject("not actionable", forKey: "x", inCollection: "other")
        }
        try await TestSupport.withTimeout { await manager.idle() }
        let fired = try await test.connection().read { tx throws in
            try tx.object(forKey: "r1", inCollection: "reminders", as: Reminder.self)?.fired
        }
        #expect(fired == true)
        // The schedule is a view: it held the reminder, and holds nothing once it fired.
        let count = try await test.connection().read { tx throws in
            try tx.extension("actions", as: ViewTransaction.self).numberOfItems(inGroup: ActionSchedule.scheduleGroup)
        }
        #expect(count == 0)
        await manager.stop()
    }

    @Test func aManagerNeedsASchedule() throws {
        let fixture = try ActionFixture()
        #expect(throws: DatabaseError.self) {
            _ = try ActionManager(database: fixture.database, schedule: "missing", scheduler: fixture.clock)
        }
        let manager = try fixture.manager()
        let second = Result { try fixture.manager() }
        #expect((try? second.get()) == nil)
        if case .failure(let error as DatabaseError) = second { #expect(error.code == .misuse) }
        _ = manager
    }

    @Test func closingTheDatabaseEndsTheManager() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["a": (10, nil)])
        let manager = try fixture.manager()
        try await fixture.settle(manager)
        try await fixture.database.close()
        // The loop ended with the database: waiting returns at once, and nothing runs.
        try await fixture.advance(to: 100, manager)
        #expect(fixture.recorder.runs.isEmpty)
        await manager.stop()
    }
}

/// An ``Actionable`` object: fires once at its date, marking itself fired.
struct Reminder: Codable, Sendable, Actionable {
    var text: String
    var at: Date
    var fired = false

    var actionItems: [ActionItem] {
        guard !fired else { return [] }
        return [
            ActionItem(identifier: "fire", date: at) { run in
                try await run.database.newConnection().readWrite { tx throws in
                    guard var reminder = try tx.object(forKey: run.key, inCollection: run.collection, as: Reminder.self)
                    else { return }
                    reminder.fired = true
                    try tx.setObject(reminder, forKey: run.key, inCollection: run.collection)
                }
            }
        ]
    }
}
