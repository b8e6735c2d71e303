import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A shared `flock` on the database file, held while a ``Database`` has it open, so that an
/// operation that replaces the file (key rotation) can tell whether another process has it open.
///
/// `flock` locks are separate from the POSIX locks SQLite takes, so the two never interfere. A
/// process that opens the file while a rotation holds the lock exclusively waits for it (up to the
/// busy timeout).
final class ProcessPresenceLock: Sendable {
    private let path: String
    /// The descriptor holding the lock; -1 once released.
    private let descriptor: Locked<Int32>

    /// Takes the shared lock on the file at `path`, waiting at most `timeout` for an exclusive holder.
    /// - Throws: ``DatabaseError`` `.busy` when another process kept it exclusively past `timeout`, `.io`
    ///   when the file cannot be opened.
    init(path: String, timeout: Duration) throws {
        self.path = path
        self.descriptor = Locked(try Self.lockShared(path: path, timeout: timeout))
    }

    deinit {
        release()
    }

    /// Drops the lock.
    func release() {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Runs `body`, which replaces the file, holding the lock exclusively; then holds the new
    /// file shared.
    /// - Throws: ``DatabaseError`` `.busy` (naming the file) when another process has the file
    ///   open, or what `body` throws.
    func withExclusive<T>(_ body: () throws -> T) throws -> T {
        try descriptor.withLock { fd in
            guard fd >= 0 else { throw DatabaseError(.misuse, "the database is closed", path: path) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                throw DatabaseError(
                    .busy, "another process has the file open; close it there before replacing the file", path: path)
            }
            defer {
                // The file at the path may be a new one now: hold that one.
                close(fd)
                fd = (try? Self.lockShared(path: path, timeout: .seconds(1))) ?? -1
            }
            return try body()
        }
    }

    private static func lockShared(path: String, timeout: Duration) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw DatabaseError(.io, "could not open the file to lock it (errno \(errno))", path: path)
        }
        let deadline = ContinuousClock.now + timeout
        while flock(fd, LOCK_SH | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(fd)
                throw DatabaseError(.busy, "another process holds the file exclusively (a key rotation)", path: path)
            }
            usleep(1_000)
        }
        return fd
    }
}
