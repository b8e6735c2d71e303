import Foundation
import Synchronization
import Testing

@testable import CofferSync

/// The hybrid logical clock: packing, order, monotonicity, receiving.
@Suite struct HybridLogicalClockTests {
    final class ManualWall: Sendable {
        let now = Mutex<UInt64>(1_000)
        func set(_ value: UInt64) { now.withLock { $0 = value } }
        var read: @Sendable () -> UInt64 { { self.now.withLock { $0 } } }
    }

    @Test func packsMillisecondsAndCounter() {
        let device = UUID()
        let stamp = HybridTimestamp(physical: 1_732_623_456_789, counter: 7, device: device)
        #expect(stamp.physical == 1_732_623_456_789 && stamp.counter == 7)
        #expect(stamp.packed == 1_732_623_456_789 << 16 | 7)
    }

    @Test func ordersByClockThenDevice() {
        let low = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        let high = UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!
        #expect(
            HybridTimestamp(physical: 5, counter: 0, device: high)
                < HybridTimestamp(physical: 5, counter: 1, device: low))
        #expect(
            HybridTimestamp(physical: 5, counter: 1, device: low)
                < HybridTimestamp(physical: 5, counter: 1, device: high))
        #expect(
            HybridTimestamp(physical: 4, counter: 9, device: high)
                < HybridTimestamp(physical: 5, counter: 0, device: low))
    }

    @Test func monotonicWhenTheWallStallsOrGoesBack() {
        let wall = ManualWall()
        let clock = HybridLogicalClock(device: UUID(), wall: wall.read)
        var previous = clock.now()
        #expect(previous.physical == 1_000 && previous.counter == 0)
        for step in 0..<100 {
            if step == 50 { wall.set(500) }
            let next = clock.now()
            #expect(previous < next)
            previous = next
        }
        #expect(previous.physical == 1_000 && previous.counter == 100)
        wall.set(2_000)
        #expect(clock.now() == HybridTimestamp(physical: 2_000, counter: 0, device: clock.device))
    }

    @Test func receiveAdvancesPastARemoteClockAhead() {
        let wall = ManualWall()
        let clock = HybridLogicalClock(device: UUID(), wall: wall.read)
        let remote = HybridTimestamp(physical: 9_000, counter: 3, device: UUID())
        clock.receive(remote)
        let next = clock.now()
        #expect(next.physical == 9_000 && next.counter == 4)
        clock.receive(HybridTimestamp(physical: 10, counter: 0, device: UUID()))
        #expect(clock.now() > next)
    }

    @Test func startsAfterAPersistedValue() {
        let wall = ManualWall()
        let persisted = HybridTimestamp(physical: 5_000, counter: 1, device: UUID()).packed
        let clock = HybridLogicalClock(device: UUID(), start: persisted, wall: wall.read)
        #expect(clock.now().packed == persisted + 1)
    }
}
