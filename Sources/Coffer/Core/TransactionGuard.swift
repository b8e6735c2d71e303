import Foundation

/// Remembers, per thread, which connections have a transaction open on it and whether a
/// write is in progress — so a nested transaction throws `misuse` instead of deadlocking.
///
/// Dispatch runs `sync` blocks on the calling thread, so a thread-local record follows a
/// transaction through every nested synchronous call it makes.
enum TransactionGuard {
    /// One thread's record.
    final class Frame {
        // Unchecked: a frame belongs to one thread, and every access is a single statement that
        // calls out to nothing, at every transaction's begin and end.
        @exclusivity(unchecked) var connections: [UInt64] = []
        @exclusivity(unchecked) var writing = 0
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Frame>.fromOpaque(pointer).release()
        }
        return key
    }()

    private static var frame: Frame {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Frame>.fromOpaque(pointer).takeUnretainedValue()
        }
        let frame = Frame()
        pthread_setspecific(key, Unmanaged.passRetained(frame).toOpaque())
        return frame
    }

    /// Whether this thread is inside a transaction of connection `id`.
    static func isInside(connection id: UInt64) -> Bool {
        frame.connections.contains(id)
    }

    /// Whether this thread is inside any transaction of any connection.
    static var isInsideAnyTransaction: Bool { !frame.connections.isEmpty }

    /// Whether this thread is inside any read-write transaction.
    static var isWriting: Bool { frame.writing > 0 }

    /// Throws `misuse` when a transaction on `id` (or, for writes, any write) is already open here.
    static func checkCanBegin(connection id: UInt64, write: Bool) throws {
        let frame = frame
        if frame.connections.contains(id) {
            throw DatabaseError(
                .misuse,
                "a transaction was started inside another transaction on the same connection; "
                    + "use the transaction you already have, or another connection")
        }
        if write && frame.writing > 0 {
            throw DatabaseError(
                .misuse,
                "a read-write transaction was started inside another read-write transaction; "
                    + "there is one writer at a time, so this would deadlock")
        }
    }

    /// Marks this thread as inside a transaction of `id` while `body` runs.
    static func inside<T>(connection id: UInt64, write: Bool, _ body: () throws -> T) rethrows -> T {
        let frame = frame
        frame.connections.append(id)
        if write { frame.writing += 1 }
        defer {
            if let index = frame.connections.lastIndex(of: id) { frame.connections.remove(at: index) }
            if write { frame.writing -= 1 }
        }
        return try body()
    }
}
