import CofferTestSupport
import Dispatch
import Foundation
import Testing

@testable import Coffer

/// The notifier's batching, on a notifier of its own with a long interval so each state lasts long
/// enough to be looked at.
@Suite struct CommitNotifierTests {
    static let interval = 400
    /// Above any snapshot the test database's own notifier may post to the same recorder.
    static let base: UInt64 = 1_000_000

    /// Once a tick has found commits waiting, the queue arms the next tick itself: the commits of a
    /// flow only append, and the first commit after the timer came to rest schedules again.
    @Test func commitsOfAFlowLeaveTheSchedulingToTheQueue() throws {
        let test = try TestDatabase()
        let notifier = CommitNotifier(
            queue: DispatchQueue(label: "coffer.tests.notifier"), interval: .milliseconds(Self.interval))
        defer { notifier.finish() }
        notifier.attach(test.database)
        let recorder = NotificationRecorder(test.database)
        let base = Self.base

        // The first commit after a quiet interval is posted at once through the wake-up source.
        notifier.post(Changeset(externalAdvanceTo: base + 1))
        #expect(recorder.changeset(snapshot: base + 1) != nil)
        #expect(notifier.schedule.byCommits == 1)

        // The next commits within the interval: the first arms the timer, the second only appends.
        notifier.post(Changeset(externalAdvanceTo: base + 2))
        notifier.post(Changeset(externalAdvanceTo: base + 3))
        #expect(notifier.schedule.byCommits == 2)
        #expect(recorder.changeset(snapshot: base + 3) != nil)

        // That tick found commits, so it armed the next one: a commit now only appends.
        #expect(notifier.schedule.isScheduled)
        notifier.post(Changeset(externalAdvanceTo: base + 4))
        #expect(notifier.schedule.byCommits == 2)
        #expect(recorder.changeset(snapshot: base + 4) != nil)

        // The tick after that finds nothing and lets the timer rest; the next commit wakes the
        // queue itself, at once (the idle tick posted nothing, so the interval has passed).
        #expect(TestSupport.wait(timeout: .seconds(10)) { !notifier.schedule.isScheduled })
        notifier.post(Changeset(externalAdvanceTo: base + 5))
        #expect(notifier.schedule.byCommits == 3)
        #expect(recorder.changeset(snapshot: base + 5, timeout: .milliseconds(Self.interval / 2)) != nil)
        #expect(recorder.changesets(after: base).map(\.snapshot) == (1...5).map { base + $0 })
    }

    /// The very first commit is posted at once, not an interval later: the interval counts from a
    /// previous posting, and there is none.
    @Test func firstCommitIsPostedAtOnce() throws {
        let test = try TestDatabase()
        let notifier = CommitNotifier(queue: DispatchQueue(label: "coffer.tests.notifier"), interval: .seconds(60))
        defer { notifier.finish() }
        notifier.attach(test.database)
        let recorder = NotificationRecorder(test.database)
        notifier.post(Changeset(externalAdvanceTo: Self.base + 1))
        #expect(recorder.changeset(snapshot: Self.base + 1, timeout: .seconds(10)) != nil)
    }

    /// Commits from several threads while ticks re-arm themselves all arrive, once, in the order
    /// they were handed to the notifier.
    @Test func everyCommitOfConcurrentFlowsArrivesOnceInOrder() throws {
        let test = try TestDatabase()
        let notifier = CommitNotifier(queue: DispatchQueue(label: "coffer.tests.notifier"))
        defer { notifier.finish() }
        notifier.attach(test.database)
        let recorder = NotificationRecorder(test.database)
        let order = Locked<[UInt64]>([])
        let next = Locked<UInt64>(Self.base)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for round in 0..<200 {
                // Numbered and posted under one lock, as commits are posted in commit order.
                next.withLock { last in
                    last += 1
                    order.append(last)
                    notifier.post(Changeset(externalAdvanceTo: last))
                }
                if round % 50 == 0 { Thread.sleep(forTimeInterval: 0.003) }
            }
        }
        #expect(TestSupport.wait(timeout: .seconds(20)) { recorder.changesets(after: Self.base).count >= 800 })
        #expect(recorder.changesets(after: Self.base).map(\.snapshot) == order.value)
        #expect(TestSupport.wait(timeout: .seconds(10)) { !notifier.schedule.isScheduled })
    }
}
