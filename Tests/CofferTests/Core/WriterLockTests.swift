import Foundation
import Synchronization
import Testing

@testable import Coffer

/// The single-writer lock serves writers in the order they asked, so that one connection writing
/// in a loop cannot keep another waiting: the thread that just let go lines up behind the
/// writers already waiting.
@Suite struct WriterLockTests {
    @Test func writersGetTheLockInTheOrderTheyAskedAndTheLastHolderQueuesBehindThem() async throws {
        let lock = WriterLock()
        let order = Mutex<[String]>([])
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchGroup()

        Self.thread(done) {
            lock.withLock {
                holding.signal()
                release.wait()
            }
            // Asks again at once, after the others lined up: it must come last.
            lock.withLock { order.withLock { $0.append("holder again") } }
        }
        holding.wait()
        for (index, name) in ["first", "second", "third"].enumerated() {
            Self.thread(done) { lock.withLock { order.withLock { $0.append(name) } } }
            let deadline = ContinuousClock.now + .seconds(10)
            while lock.waiters < index + 1 {
                guard ContinuousClock.now < deadline else {
                    Issue.record("writer \(name) never started waiting")
                    release.signal()
                    return
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(order.withLock { $0 } == ["first", "second", "third", "holder again"])
    }

    /// Runs `body` on a thread of its own (not a pool that may wait before adding threads), in
    /// `group`.
    static func thread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread.detachNewThread {
            body()
            group.leave()
        }
    }

    @Test func aThrowingWriterHandsTheLockOn() throws {
        struct Failure: Error {}
        let lock = WriterLock()
        #expect(throws: Failure.self) { try lock.withLock { throw Failure() } }
        #expect(lock.withLock { 42 } == 42)
    }
}
