import CofferTestSupport
import Dispatch
import Foundation
import Testing

@testable import Coffer

/// The gate that keeps SQLite commits apart from read transactions pinning their snapshot: a pin
/// never overlaps a commit, in either order, and pins overlap each other freely.
@Suite struct SnapshotGateTests {
    /// Runs `body` on a new thread (not a dispatch pool, which may delay a new worker while the
    /// others are blocked), inside `group`.
    private func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    @Test func aPinWaitsForTheCommitInProgress() {
        let gate = SnapshotGate()
        let events = Locked<[String]>([])
        let committing = DispatchSemaphore(value: 0)
        let finishCommit = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        spawn(group) {
            gate.commit {
                committing.signal()
                finishCommit.wait()
                events.append("commit")
            }
        }
        committing.wait()
        spawn(group) { gate.pin { events.append("pin") } }
        // The pin must still be waiting: give it time to (wrongly) run.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(events.value.isEmpty)
        finishCommit.signal()
        #expect(TestSupport.wait(group, timeout: .seconds(10)))
        #expect(events.value == ["commit", "pin"])
    }

    @Test func aCommitWaitsForThePinsInProgressAndPinsOverlap() {
        let gate = SnapshotGate()
        let events = Locked<[String]>([])
        let pinned = DispatchSemaphore(value: 0)
        let finishPins = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<2 {
            spawn(group) {
                gate.pin {
                    pinned.signal()
                    finishPins.wait()
                    events.append("pin \(index)")
                }
            }
        }
        // Both pins are inside the gate at once.
        pinned.wait()
        pinned.wait()
        spawn(group) { gate.commit { events.append("commit") } }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(events.value.isEmpty)
        finishPins.signal()
        finishPins.signal()
        #expect(TestSupport.wait(group, timeout: .seconds(10)))
        #expect(events.value.last == "commit")
        #expect(events.value.count == 3)
    }
}
