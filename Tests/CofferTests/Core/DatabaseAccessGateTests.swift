import CofferTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Coffer

/// The access gate on its own: shared holds keep a rotation or a close out, an exclusive hold
/// keeps transactions out, and a closed gate refuses everyone.
@Suite struct DatabaseAccessGateTests {
    /// The code of the ``DatabaseError`` `body` throws (the extension suites' helper).
    private func code(_ body: () throws -> Void) -> DatabaseError.Code? { Extensions.code(body) }

    @Test func sharedHoldsKeepAnExclusiveHoldOutUntilTheLastEnds() throws {
        let gate = DatabaseAccessGate(path: "/tmp/gate.db")
        try gate.enterShared(timeout: .milliseconds(10))
        try gate.enterShared(timeout: .milliseconds(10))
        #expect(gate.idleTime(at: DispatchTime.now().uptimeNanoseconds) == 0)
        #expect(code { try gate.withExclusiveAccess(timeout: .milliseconds(20)) {} } == .busy)
        gate.leaveShared()
        #expect(code { try gate.withExclusiveAccess(timeout: .milliseconds(20)) {} } == .busy)
        gate.leaveShared()
        #expect(!gate.isHeldExclusively)
        var ran = false
        try gate.withExclusiveAccess(timeout: .milliseconds(20)) {
            ran = true
            #expect(gate.isHeldExclusively)
            // Another rotation, and a transaction, are refused while this one holds the gate.
            #expect(code { try gate.withExclusiveAccess(timeout: .milliseconds(20)) {} } == .busy)
            #expect(code { try gate.enterShared(timeout: .milliseconds(20)) } == .busy)
        }
        #expect(ran && !gate.isHeldExclusively)
        try gate.enterShared(timeout: .milliseconds(10))
        gate.leaveShared()
    }

    @Test func idleTimeCountsFromTheLastHoldsEnd() throws {
        let gate = DatabaseAccessGate(path: "/tmp/gate.db")
        try gate.enterShared(timeout: .milliseconds(10))
        let held = DispatchTime.now().uptimeNanoseconds
        #expect(gate.idleTime(at: held) == 0)
        gate.leaveShared()
        let left = DispatchTime.now().uptimeNanoseconds
        let later = left + 5_000_000
        #expect(gate.idleTime(at: later) >= 5_000_000)
        #expect(gate.idleTime(at: later) <= later - held)
    }

    @Test func aCloseWaitsForHoldsThenRefusesEveryone() throws {
        let gate = DatabaseAccessGate(path: "/tmp/gate.db")
        try gate.enterShared(timeout: .milliseconds(10))
        #expect(code { _ = try gate.close(until: .now + .milliseconds(20)) } == .busy)
        // A close that gave up leaves the gate open as before.
        #expect(!gate.isClosed && !gate.isHeldExclusively)
        try gate.enterShared(timeout: .milliseconds(10))
        gate.leaveShared()
        gate.leaveShared()
        #expect(try gate.close(until: .now + .milliseconds(20)))
        #expect(gate.isClosed)
        #expect(code { try gate.enterShared(timeout: .seconds(5)) } == .closed)
        #expect(code { try gate.withExclusiveAccess(timeout: .seconds(5)) {} } == .closed)
        #expect(try !gate.close(until: .now + .milliseconds(20)))
    }

    @Test func noTransactionIsInsideWhileRotationsRun() throws {
        let gate = DatabaseAccessGate(path: "/tmp/gate.db")
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let rotations = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                while !stop.load(ordering: .relaxed) {
                    guard (try? gate.enterShared(timeout: .seconds(5))) != nil else { continue }
                    inside.add(1, ordering: .relaxed)
                    inside.subtract(1, ordering: .relaxed)
                    gate.leaveShared()
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while rotations.load(ordering: .relaxed) < 50 && ContinuousClock.now < deadline {
            try? gate.withExclusiveAccess(timeout: .seconds(1)) {
                if inside.load(ordering: .relaxed) != 0 { overlaps.add(1, ordering: .relaxed) }
                rotations.add(1, ordering: .relaxed)
            }
        }
        stop.store(true, ordering: .relaxed)
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(rotations.load(ordering: .relaxed) == 50)
        #expect(overlaps.load(ordering: .relaxed) == 0)
    }
}
