import Coffer
public import Foundation

extension TestSupport {
    /// Runs `body` on a new thread and waits at most `timeout` for it.
    ///
    /// Returns the body's result, or nil when it did not finish in time (a deadlock, say): the
    /// test can then fail instead of hanging. A body that times out is left running.
    public static func runBounded<T: Sendable>(
        timeout: Duration = .seconds(10), _ body: @escaping @Sendable () throws -> T
    ) -> Result<T, any Error>? {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.start()
        guard done.wait(timeout: .now() + timeout.timeInterval) == .success else { return nil }
        return outcome.value
    }

    /// Waits on `semaphore` at most `timeout`; returns whether it was signalled.
    public static func wait(_ semaphore: DispatchSemaphore, timeout: Duration = .seconds(10)) -> Bool {
        semaphore.wait(timeout: .now() + timeout.timeInterval) == .success
    }

    /// Waits for `group` at most `timeout`; returns whether every member left it.
    public static func wait(_ group: DispatchGroup, timeout: Duration = .seconds(10)) -> Bool {
        group.wait(timeout: .now() + timeout.timeInterval) == .success
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch timeouts.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
