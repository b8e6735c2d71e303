#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The database's single-writer lock: read-write transactions, vacuums and key rotations run
/// inside it one at a time, across all connections and threads.
///
/// A pthread mutex rather than a serial `DispatchQueue` entered with `sync`: the queue runs the
/// block on the calling thread as the lock does, but each `sync` of a throwing, value-returning
/// block allocates closure contexts and goes through Dispatch's rethrow helper, a noticeable share
/// of a small write transaction (BENCHMARKS.md, "Hot paths"). A pthread mutex, as in ``Locked``,
/// so that ThreadSanitizer sees the lock handed from one writer to the next.
///
/// Not recursive: a writer that enters it again deadlocks, which `TransactionGuard` turns into
/// a `misuse` error before it can happen.
final class WriterLock: @unchecked Sendable {
    // Safety: the mutex is allocated once, never moves (a pthread mutex must not), and is
    // destroyed only in `deinit`; it guards no stored value of its own.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        assert(status == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the calling thread while holding the lock, and returns what it returns.
    /// - Throws: whatever `body` throws, after unlocking.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        let locked = pthread_mutex_lock(mutex)
        assert(locked == 0, "pthread_mutex_lock failed")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            assert(unlocked == 0, "pthread_mutex_unlock failed")
        }
        return try body()
    }
}
