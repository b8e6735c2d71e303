import Foundation

extension UUID {
    /// The last (millisecond, counter) handed out, so that UUIDs made in one process increase.
    private static let timeOrderedState = Locked<(milliseconds: UInt64, counter: UInt16)>((0, 0))

    /// A new version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter that keeps
    /// UUIDs of one millisecond increasing within the process, and 62 random bits.
    ///
    /// Operations get these by default so that the queue's UUID index grows at its end instead of
    /// splitting pages everywhere; they are as unique as random UUIDs for the queue's purpose.
    static func timeOrdered(now: Date = Date()) -> UUID {
        let wall = UInt64(max(0, now.timeIntervalSince1970 * 1_000))
        let (milliseconds, counter) = timeOrderedState.withLock { state -> (UInt64, UInt16) in
            if wall > state.milliseconds {
                state = (wall, 0)
            } else if state.counter < 0x0FFF {
                state.counter += 1
            } else {
                state = (state.milliseconds + 1, 0)
            }
            return state
        }
        var random = SystemRandomNumberGenerator()
        let tail = random.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: counter >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: counter)
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: tail >> (56 - 8 * UInt64(index - 8))) }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
