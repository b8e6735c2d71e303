extension TestSupport {
    /// Thrown by ``withTimeout(_:_:)`` when the operation did not finish in time.
    public struct TimeoutError: Error, CustomStringConvertible {
        /// What timed out.
        public var description: String { "the operation did not finish in time" }
    }

    /// Runs `operation`, cancelling it and throwing ``TimeoutError`` after `timeout`.
    ///
    /// Bounds operations that honour cancellation (such as iterating an `AsyncStream`); an
    /// operation that ignores cancellation is still waited for.
    /// - Throws: ``TimeoutError``, or what `operation` throws.
    public static func withTimeout<T: Sendable>(
        _ timeout: Duration = .seconds(10), _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimeoutError()
            }
            defer { group.cancelAll() }
            guard let result = try await group.next() else { throw TimeoutError() }
            return result
        }
    }
}
