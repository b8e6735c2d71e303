public import Foundation

extension Process {
    /// Waits for the process to end, terminating it once `timeout` has passed.
    ///
    /// - Returns: Whether it had to be terminated (it ran past `timeout`).
    public func waitUntilExit(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while isRunning {
            if ContinuousClock.now >= deadline {
                timedOut = true
                terminate()
                break
            }
            usleep(5_000)
        }
        waitUntilExit()
        return timedOut
    }
}
