public import Foundation

/// When a write happened, by a hybrid logical clock: what last-writer-wins compares.
///
/// `physical` is milliseconds since 1970 (48 bits), `counter` orders writes within one
/// millisecond or after a clock seen ahead of the wall (16 bits), and `device` breaks the
/// remaining ties, so two timestamps from different devices are never equal.
public struct HybridTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The largest physical value: 48 bits of milliseconds.
    public static let maximumPhysical: UInt64 = (1 << 48) - 1

    /// The 48-bit milliseconds and 16-bit counter packed as `physical << 16 | counter`.
    public let packed: UInt64
    /// The device that wrote.
    public let device: UUID

    /// A timestamp from its packed clock value and its device.
    public init(packed: UInt64, device: UUID) {
        self.packed = packed
        self.device = device
    }

    /// A timestamp from its parts (`physical` is cut to 48 bits).
    public init(physical: UInt64, counter: UInt16, device: UUID) {
        self.init(packed: (physical & Self.maximumPhysical) << 16 | UInt64(counter), device: device)
    }

    /// Milliseconds since 1970.
    public var physical: UInt64 { packed >> 16 }
    /// The logical counter within `physical`.
    public var counter: UInt16 { UInt16(truncatingIfNeeded: packed) }

    /// By clock value, then by device id bytes.
    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        if lhs.packed != rhs.packed { return lhs.packed < rhs.packed }
        return lhs.device.bytes.lexicographicallyPrecedes(rhs.device.bytes)
    }

    /// `1732623456789.3@device-uuid`.
    public var description: String { "\(physical).\(counter)@\(device.uuidString)" }
}
