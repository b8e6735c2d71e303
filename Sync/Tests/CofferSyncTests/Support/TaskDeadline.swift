import Synchronization

/// Waits for `task`'s value up to `timeout`: the value, or nil when it is not there in time.
///
/// The task itself goes on (it is not cancelled), so a test can check that a call is still
/// waiting and then wait for it again.
func value<Success: Sendable>(
    of task: Task<Success, any Error>,
    within timeout: Duration
) async throws -> Success? {
    let first = FirstResult<Success?>()
    return try await withCheckedThrowingContinuation { continuation in
        first.install(continuation)
        // Unstructured on purpose: awaiting `task.value` cannot be cancelled, and a task group
        // would wait for it when the deadline wins.
        Task {
            do {
                first.settle(.success(try await task.value))
            } catch {
                first.settle(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: timeout)
            first.settle(.success(nil))
        }
    }
}

/// Resumes a continuation with whichever result comes first and ignores the others.
private final class FirstResult<Value: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Value, any Error>?>(nil)

    /// Sets the continuation to resume, before anything can settle.
    func install(_ waiter: CheckedContinuation<Value, any Error>) {
        continuation.withLock { $0 = waiter }
    }

    /// Resumes the waiter with `result` unless another result came first.
    func settle(_ result: Result<Value, any Error>) {
        continuation.withLock { waiting in
            waiting?.resume(with: result)
            waiting = nil
        }
    }
}
