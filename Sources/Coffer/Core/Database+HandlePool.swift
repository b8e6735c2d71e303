import CofferSQLite
import Foundation

/// Recycling the SQLite handles of released connections, so creating a connection is cheap
/// (YapDatabase's connection pool: `maxConnectionPoolCount`, `connectionPoolLifetime`).
struct HandlePool {
    struct Entry {
        let handle: SQLiteConnection
        let generation: UInt64
        let releasedAt: ContinuousClock.Instant
    }

    var entries: [Entry] = []
    var maxCount = 5
    var lifetime: Duration = .seconds(90)
    var timerScheduled = false
}

extension Database {
    /// How many handles of released connections are kept for reuse (default 5; 0 keeps none).
    public var maxConnectionPoolCount: Int {
        get { handlePool.withLock { $0.maxCount } }
        set {
            let dropped = handlePool.withLock { pool -> [HandlePool.Entry] in
                pool.maxCount = max(0, newValue)
                let excess = max(0, pool.entries.count - pool.maxCount)
                let dropped = Array(pool.entries.prefix(excess))
                pool.entries.removeFirst(excess)
                return dropped
            }
            for entry in dropped { entry.handle.close() }
        }
    }

    /// How long a kept handle may wait for reuse before it is closed (default 90 s; zero or
    /// negative: kept until the database is released, no timer).
    public var connectionPoolLifetime: Duration {
        get { handlePool.withLock { $0.lifetime } }
        set { handlePool.withLock { $0.lifetime = newValue } }
    }

    /// A kept handle of the current keying generation, if any (none once closed).
    func dequeueHandle() -> (handle: SQLiteConnection, generation: UInt64)? {
        guard !gate.isClosed else { return nil }
        let generation = keying.withLock { $0.generation }
        return handlePool.withLock { pool in
            while let entry = pool.entries.popLast() {
                if entry.generation == generation && !entry.handle.isClosed { return (entry.handle, entry.generation) }
                entry.handle.close()
            }
            return nil
        }
    }

    /// Keeps a released connection's handle for reuse, or closes it.
    func enqueueHandle(_ handle: SQLiteConnection, generation: UInt64) {
        let current = keying.withLock { $0.generation }
        let (kept, lifetime, needsTimer) = handlePool.withLock { pool -> (Bool, Duration, Bool) in
            // Checked under the pool's lock: a close drains the pool after it closed the gate.
            guard !gate.isClosed, generation == current, !handle.isClosed, handle.isAutocommit,
                pool.entries.count < pool.maxCount
            else { return (false, pool.lifetime, false) }
            pool.entries.append(HandlePool.Entry(handle: handle, generation: generation, releasedAt: .now))
            let needsTimer = pool.lifetime > .zero && !pool.timerScheduled
            if needsTimer { pool.timerScheduled = true }
            return (true, pool.lifetime, needsTimer)
        }
        if !kept { handle.close() }
        if needsTimer { schedulePoolExpiry(after: lifetime) }
    }

    private func schedulePoolExpiry(after delay: Duration) {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.expirePooledHandles()
        }
    }

    /// Closes kept handles older than the lifetime; reschedules while some remain.
    func expirePooledHandles() {
        let (expired, next) = handlePool.withLock { pool -> ([HandlePool.Entry], Duration?) in
            pool.timerScheduled = false
            guard pool.lifetime > .zero else { return ([], nil) }
            let now = ContinuousClock.now
            let expired = pool.entries.filter { now - $0.releasedAt >= pool.lifetime }
            pool.entries.removeAll { now - $0.releasedAt >= pool.lifetime }
            guard let oldest = pool.entries.first else { return (expired, nil) }
            pool.timerScheduled = true
            return (expired, pool.lifetime - (now - oldest.releasedAt))
        }
        for entry in expired { entry.handle.close() }
        if let next { schedulePoolExpiry(after: next) }
    }

    /// Closes every kept handle (key rotation, close, database release).
    func drainHandlePool() {
        let entries = handlePool.withLock { pool -> [HandlePool.Entry] in
            defer { pool.entries.removeAll() }
            return pool.entries
        }
        for entry in entries { entry.handle.close() }
    }

    /// How many handles are kept for reuse right now.
    var pooledHandleCount: Int { handlePool.withLock { $0.entries.count } }
}
