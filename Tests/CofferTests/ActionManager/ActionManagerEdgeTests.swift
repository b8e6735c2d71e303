import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The system scheduler's timers, typed handlers over JSON rows, and a schedule unregistered
/// under a running manager.
@Suite(.timeLimit(.minutes(1))) struct ActionManagerEdgeTests {
    @Test func theSystemSchedulerFiresPastDatesAndNotCancelledOnes() async throws {
        let scheduler = SystemActionScheduler()
        let fired = Locked<[String]>([])
        let future = scheduler.schedule(at: scheduler.now.addingTimeInterval(3_600)) {
            fired.withLock { $0.append("future") }
        }
        future.cancel()
        try await TestSupport.withTimeout {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                _ = scheduler.schedule(at: .distantPast) {
                    fired.withLock { $0.append("past") }
                    done.resume()
                }
            }
        }
        #expect(fired.withLock { $0 } == ["past"])
    }

    @Test func aTypedHandlerReadsRowsOfTheAutomaticCodec() async throws {
        let test = try TestDatabase()
        // No codec registered: rows are stored as JSON, and read back as EncodedValue.
        try test.database.register(
            ActionSchedule(items: .actionable(Reminder.self), allowedCollections: .only(["notes"])),
            withName: "actions")
        let clock = ManualActionScheduler(now: ActionFixture.epoch)
        let manager = try ActionManager(database: test.database, schedule: "actions", scheduler: clock)
        let writer = try test.connection()
        try await writer.readWrite { tx throws in
            try tx.setObject(
                Reminder(text: "call", at: ActionFixture.epoch.addingTimeInterval(60)), forKey: "r",
                inCollection: "notes")
        }
        try await TestSupport.withTimeout { await manager.idle() }
        #expect(clock.scheduledDates == [ActionFixture.epoch.addingTimeInterval(60)])
        clock.advance(by: 60)
        try await TestSupport.withTimeout { await manager.idle() }
        let fired = try await writer.read { tx throws in
            try tx.object(forKey: "r", inCollection: "notes", as: Reminder.self)?.fired
        }
        #expect(fired == true)
        await manager.stop()
    }

    @Test func unregisteringTheScheduleStopsTheManager() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["a": (10, nil)])
        let manager = try fixture.manager()
        try await fixture.settle(manager)
        try fixture.database.unregister(extensionNamed: "actions")
        try await fixture.advance(to: 100, manager)
        #expect(fixture.recorder.runs.isEmpty)
        await manager.stop()
        // The schedule is free again: registered anew, a new manager runs it.
        try fixture.database.register(
            ActionSchedule(items: fixture.recorder.items, allowedCollections: .only(["chores"])), withName: "actions")
        let second = try fixture.manager()
        try await fixture.settle(second)
        #expect(fixture.recorder.keys == ["a"])
        await second.stop()
    }

    @Test func workThatThrowsRunsAgainAfterItsTimeout() async throws {
        let test = try TestDatabase()
        let attempts = Locked(0)
        let items = ActionItemsHandler.object(Chore.self) { row, items in
            items = [
                ActionItem(identifier: "flaky", date: row.object.due, retryTimeout: row.object.retry) { _ in
                    attempts.withLock { $0 += 1 }
                    throw CancellationError()
                }
            ]
        }
        test.database.registerCodable(Chore.self, forCollection: "chores")
        try test.database.register(ActionSchedule(items: items), withName: "actions")
        let clock = ManualActionScheduler(now: ActionFixture.epoch)
        let manager = try ActionManager(database: test.database, schedule: "actions", scheduler: clock)
        try await test.connection().readWrite { tx throws in
            try tx.setObject(Chore(due: ActionFixture.epoch, retry: 5), forKey: "c", inCollection: "chores")
        }
        try await TestSupport.withTimeout { await manager.idle() }
        #expect(attempts.withLock { $0 } == 1)
        clock.advance(by: 5)
        try await TestSupport.withTimeout { await manager.idle() }
        #expect(attempts.withLock { $0 } == 2)
        await manager.stop()
    }

    @Test func idleGivesUpWhenItsTaskIsCancelled() async throws {
        let fixture = try ActionFixture()
        try fixture.add(["held": (0, nil)])
        fixture.recorder.close()
        let manager = try fixture.manager()
        let recorder = fixture.recorder
        try await TestSupport.withTimeout { await recorder.waitForRuns(1) }
        // The work is held, so the manager is not idle: a bounded wait ends instead of hanging.
        await #expect(throws: TestSupport.TimeoutError.self) {
            try await TestSupport.withTimeout(.milliseconds(100)) { await manager.idle() }
        }
        recorder.open()
        try await fixture.settle(manager)
        #expect(recorder.keys == ["held"])
        await manager.stop()
    }
}
