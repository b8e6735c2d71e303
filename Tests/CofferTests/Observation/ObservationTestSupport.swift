import Foundation

/// Polling for asynchronous tests: waits without blocking a thread of the cooperative pool, which
/// the tasks under test need to make progress.
enum AsyncPolling {
    /// Checks `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
    static func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}
