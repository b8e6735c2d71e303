// Uncontended cost of one `withLock { $0 &+= 1 }`: Synchronization.Mutex against Coffer's Locked.
//
//   swiftc -swift-version 6 -O -wmo -parse-as-library -package-name coffer \
//       Sources/Coffer/Utilities/Locked.swift scripts/tsan/lock-cost.swift -o /tmp/lock-cost && /tmp/lock-cost
import Foundation
import Synchronization

final class MutexHolder: Sendable {
    let state = Mutex(0)
}

@inline(never) func bump(_ holder: MutexHolder) { holder.state.withLock { $0 &+= 1 } }
@inline(never) func bump(_ locked: Locked<Int>) { locked.withLock { $0 &+= 1 } }

/// Nanoseconds per call of `body`, over `iterations` calls.
func nanoseconds(_ iterations: Int, _ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    for _ in 0..<iterations { body() }
    let elapsed = ContinuousClock.now - start
    let total = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return total / Double(iterations)
}

@main struct LockCost {
    static func main() {
        let mutex = MutexHolder()
        let locked = Locked(0)
        var best = (mutex: Double.infinity, locked: Double.infinity)
        // Interleaved rounds, best of 15: the machine is shared, the minimum is the cost.
        for _ in 0..<15 {
            best.mutex = min(best.mutex, nanoseconds(5_000_000) { bump(mutex) })
            best.locked = min(best.locked, nanoseconds(5_000_000) { bump(locked) })
        }
        print(String(format: "Mutex  %.1f ns\nLocked %.1f ns", best.mutex, best.locked))
        if mutex.state.withLock({ $0 }) != locked.withLock({ $0 }) { print("the two counts differ") }
    }
}
