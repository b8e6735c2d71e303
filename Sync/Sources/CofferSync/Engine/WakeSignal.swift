import Foundation
import Synchronization

/// Wakes the engine's loop: a flag set by signals (a local commit, a NOTIFY, `syncNow()`), and
/// a wait that returns when it is set or a timeout passes.
final class WakeSignal: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Sets the flag, resuming a waiting loop.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.signalled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the flag is set (clearing it) or `timeout` passed.
    func wait(timeout: Duration) async {
        let timer = Task {
            // Cancelled when the wait ended another way: then it must not signal the next wait.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            signal()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.signalled { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        state.withLock { $0.signalled = false }
    }
}
