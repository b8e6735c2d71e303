package import Coffer

// Tests share values with the closures they hand to Coffer (completion blocks, notification
// observers, other threads) through the library's own lock, so a ThreadSanitizer run sees the
// tests' locking as well as the library's.

extension Locked where Value: Sendable {
    /// The current value, read under the lock.
    package var value: Value {
        withLock { $0 }
    }
}

extension Locked where Value: RangeReplaceableCollection, Value.Element: Sendable {
    /// Appends one element under the lock.
    package func append(_ element: Value.Element) {
        withLock { $0.append(element) }
    }
}
