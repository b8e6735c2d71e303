public import Foundation
import Synchronization

/// A device's hybrid logical clock: stamps its writes so that a write made after seeing another
/// always compares later, even when the wall clocks of the devices disagree.
///
/// Monotonic: every ``now()`` is later than every earlier ``now()`` and every timestamp passed
/// to ``receive(_:)``. The wall clock is injectable for tests.
public final class HybridLogicalClock: Sendable {
    /// The device whose writes this clock stamps.
    public let device: UUID
    private let wall: @Sendable () -> UInt64
    private let last: Mutex<UInt64>

    /// A clock for `device`, starting after `start` (the packed value of the last timestamp the
    /// device issued or saw, kept across launches), reading milliseconds from `wall`.
    public init(
        device: UUID, start: UInt64 = 0,
        wall: @escaping @Sendable () -> UInt64 = { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }
    ) {
        self.device = device
        self.wall = wall
        last = Mutex(start)
    }

    /// The packed value of the latest timestamp issued or received.
    public var latest: UInt64 { last.withLock { $0 } }

    /// A timestamp for a local write, later than everything this clock has issued or seen.
    public func now() -> HybridTimestamp {
        let physical = min(wall(), HybridTimestamp.maximumPhysical) << 16
        let packed = last.withLock { last -> UInt64 in
            // The counter's overflow carries into the milliseconds: still monotonic, and it
            // needs 65,536 writes in one millisecond.
            last = max(physical, last &+ 1)
            return last
        }
        return HybridTimestamp(packed: packed, device: device)
    }

    /// Advances the clock past a timestamp another device wrote, so later local writes order
    /// after it.
    public func receive(_ timestamp: HybridTimestamp) {
        last.withLock { $0 = max($0, timestamp.packed) }
    }
}
