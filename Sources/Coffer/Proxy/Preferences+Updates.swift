/// Following one typed key's value as it changes.
extension Preferences {
    /// The value of `key` now, then its new value after each change, as an asynchronous sequence.
    ///
    /// Covers sets through this instance (announced a few milliseconds later, a burst at once) and
    /// commits of other writers to the suite: other ``Preferences`` instances, on this database's
    /// connections. A change that leaves the value as it was is not delivered again. A consumer
    /// that falls behind gets the latest value, not every intermediate one. The sequence ends when
    /// the consumer stops iterating (or its task is cancelled), or when this instance is released.
    ///
    /// ```swift
    /// for await isDark in prefs.updates(for: .darkMode) {
    ///     print(isDark)
    /// }
    /// ```
    /// - Complexity: O(1) per announced change that does not name the key.
    public func updates<Value>(for key: Key<Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let name = key.name
        // The stored value last delivered (nil for none), to skip changes that restore it. Every
        // yield happens under this lock, after reading the value, so deliveries keep their order.
        let delivered = Locked<PreferenceValue?>(nil)
        let sink = PreferencesUpdateSinks.Sink(
            deliver: { [weak self] change in
                guard change.keys.contains(name), let self else { return }
                let stored = self.value(forKey: name)
                delivered.withLock { last in
                    guard last != stored else { return }
                    last = stored
                    continuation.yield(self.value(for: key, stored: stored))
                }
            },
            finish: { continuation.finish() })
        // The first value is read under the state lock that makes the sink visible, so a delivery
        // reads the same value or a newer one, and is yielded before any delivery can be.
        let id = delivered.withLock { last in
            let (id, stored) = state.withLock { state in (state.updateSinks.add(sink), state.value(forKey: name)) }
            last = stored
            continuation.yield(value(for: key, stored: stored))
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.updateSinks.remove(id) }
        }
        // After a close no change can come: the current value is the last one.
        if database.gate.isClosed { continuation.finish() }
        return stream
    }
}
