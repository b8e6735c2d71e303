// Does ThreadSanitizer see a lock hand-over? Two threads bump shared state behind one lock, with
// a critical section long enough that the lock is often contended. Build and run:
//
//   swiftc -swift-version 6 -sanitize=thread -parse-as-library scripts/tsan/mutex-repro.swift -o /tmp/repro
//   /tmp/repro mutex     # Synchronization.Mutex: TSan reports races (Swift 6.3.1, Linux x86-64)
//   /tmp/repro pthread   # pthread_mutex_t, what Coffer's Locked uses: clean
//   /tmp/repro nslock    # NSLock: clean
//
// The totals always come out exact: the locking is correct, TSan just cannot see it.
import Foundation
import Synchronization

final class Shared: @unchecked Sendable {
    var counters = [0]
    var operations = 0

    func bump() {
        for _ in 0..<50 { counters[0] &+= 1 }
        operations &+= 1
    }
}

final class PthreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    func withLock(_ body: () -> Void) {
        pthread_mutex_lock(mutex)
        body()
        pthread_mutex_unlock(mutex)
    }
}

@main struct MutexRepro {
    static func main() {
        let mode = CommandLine.arguments.dropFirst().first ?? "mutex"
        let shared = Shared()
        let mutex = Mutex(())
        let pthread = PthreadLock()
        let nslock = NSLock()
        let step: @Sendable () -> Void
        switch mode {
        case "mutex": step = { mutex.withLock { _ in shared.bump() } }
        case "pthread": step = { pthread.withLock { shared.bump() } }
        case "nslock": step = { nslock.withLock { shared.bump() } }
        default:
            print("usage: repro mutex|pthread|nslock")
            exit(2)
        }
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread {
                for _ in 0..<20_000 { step() }
                done.leave()
            }.start()
        }
        done.wait()
        print("\(mode): \(shared.counters[0]) increments (expected 2000000), \(shared.operations) sections (40000)")
    }
}
