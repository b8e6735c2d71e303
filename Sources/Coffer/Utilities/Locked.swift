#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value several threads share, reachable only while its lock is held.
///
/// It has the shape of `Synchronization.Mutex` (`withLock`) but locks a `pthread_mutex_t`,
/// because ThreadSanitizer cannot see `Mutex` hand the lock from one thread to another on
/// Linux: there a contended `Mutex` waits in the kernel (`FUTEX_LOCK_PI`) and the kernel gives
/// ownership to the waiter, so no instrumented acquire happens and TSan reports every access
/// behind the lock as a race (RELIABILITY.md, "ThreadSanitizer"). TSan intercepts pthread
/// mutexes, so a TSan run over Coffer reports real races only, and it also checks lock order.
///
/// Like `Mutex` it is not recursive: calling `withLock` again from inside `body` deadlocks.
/// `Value` must not be an empty type such as `()`: Swift's TSan instrumentation then places the
/// access to `value` at the object's own address, where every call reads the class metadata
/// without the lock, and TSan reports a race that is not there (`scripts/tsan/empty-value-repro.swift`).
/// Every target of the package uses it in place of `Mutex`; `Atomic` stays (TSan sees atomics).
package final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only inside `withLock`, between lock and unlock of
    // `mutex`, so one thread at a time touches it; `body` takes and returns `sending` values,
    // so nothing non-Sendable enters or leaves the lock still shared. `mutex` is allocated
    // once, never moves (a pthread mutex must not), and is destroyed only in `deinit`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // The mutex already makes every access exclusive; Swift's dynamic exclusivity check would
    // only add to the cost of every uncontended `withLock`.
    @exclusivity(unchecked) private var value: Value

    /// Puts `initialValue` behind a new lock.
    package init(_ initialValue: consuming sending Value) {
        assert(MemoryLayout<Value>.size > 0, "Locked must guard a non-empty value (see the type's documentation)")
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        assert(status == 0, "pthread_mutex_init failed")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// `body` runs on the calling thread while the lock is held: keep it short, and never call
    /// `withLock` on the same lock from inside it.
    /// - Complexity: O(1) plus `body`; uncontended, one lock and one unlock of a pthread mutex
    ///   (cheaper than `Mutex` on Linux; RELIABILITY.md).
    /// - Throws: whatever `body` throws, after unlocking.
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let locked = pthread_mutex_lock(mutex)
        assert(locked == 0, "pthread_mutex_lock failed")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            assert(unlocked == 0, "pthread_mutex_unlock failed")
        }
        return try body(&value)
    }
}
