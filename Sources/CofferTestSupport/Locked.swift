import Synchronization

/// A value shared between a test and the closures it hands to Coffer (completion blocks,
/// notification observers, other threads), behind a lock.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    /// Wraps `value`.
    public init(_ value: Value) {
        storage = Mutex(value)
    }

    /// The current value.
    public var value: Value {
        storage.withLock { $0 }
    }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    public func withLock<R: Sendable>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLock { try body(&$0) }
    }
}

extension Locked where Value: RangeReplaceableCollection {
    /// Appends one element under the lock.
    public func append(_ element: Value.Element) {
        storage.withLock { $0.append(element) }
    }
}
