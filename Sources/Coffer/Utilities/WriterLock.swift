#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The database's single-writer lock: read-write transactions, vacuums and key rotations run
/// inside it one at a time, across all connections and threads, in the order they asked.
///
/// A ticket lock on a pthread mutex and condition rather than a serial `DispatchQueue` entered
/// with `sync`: the queue runs the block on the calling thread as the lock does, but each `sync`
/// of a throwing, value-returning block allocates closure contexts and goes through Dispatch's
/// rethrow helper, a noticeable share of a small write transaction (BENCHMARKS.md, "Hot paths").
/// Tickets keep the queue's first-come, first-served order: a bare mutex lets the thread that
/// just unlocked take it again before a woken waiter runs, so one connection writing in a loop
/// could keep every other writer waiting. pthread primitives, as in ``Locked``, so that
/// ThreadSanitizer sees the lock handed from one writer to the next.
///
/// Not recursive: a writer that enters it again deadlocks, which `TransactionGuard` turns into
/// a `misuse` error before it can happen.
final class WriterLock: @unchecked Sendable {
    // Safety: the mutex and the condition are allocated once, never move (pthread objects must
    // not), and are destroyed only in `deinit`; the ticket counters are touched only while the
    // mutex is held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let turn: UnsafeMutablePointer<pthread_cond_t>
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0
    private var waiting = 0

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let mutexStatus = pthread_mutex_init(mutex, nil)
        assert(mutexStatus == 0, "pthread_mutex_init failed")
        turn = .allocate(capacity: 1)
        turn.initialize(to: pthread_cond_t())
        let conditionStatus = pthread_cond_init(turn, nil)
        assert(conditionStatus == 0, "pthread_cond_init failed")
    }

    deinit {
        pthread_cond_destroy(turn)
        turn.deinitialize(count: 1)
        turn.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the calling thread once every writer that asked before has finished, and
    /// returns what it returns.
    /// - Throws: whatever `body` throws, after handing the lock on.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        let ticket = nextTicket
        nextTicket &+= 1
        if ticket != serving {
            waiting += 1
            repeat { pthread_cond_wait(turn, mutex) } while ticket != serving
            waiting -= 1
        }
        pthread_mutex_unlock(mutex)
        defer {
            pthread_mutex_lock(mutex)
            serving &+= 1
            if waiting > 0 { pthread_cond_broadcast(turn) }
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }

    /// How many threads wait for their turn (for tests that line writers up).
    var waiters: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waiting
    }
}
