import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A shared lock on the database file, held while a ``Database`` has it open, so that an
/// operation that replaces the file (key rotation) can tell whether another process has it open,
/// and a commit under multi-process support whether any other process would read its number.
///
/// On Linux it is an open-file-description lock on the file's first byte (`F_OFD_SETLK`), which
/// SQLite never locks; unlike `flock`, such a lock can be asked about (`F_OFD_GETLK`) without
/// taking it. Elsewhere it is a `flock`, and the file always counts as shared. A process that opens
/// the file while a rotation holds the lock exclusively waits for it (up to the busy timeout).
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

    /// Whether another process holds the file open (its shared lock); true where that cannot be
    /// asked, and once released.
    ///
    /// One system call. A process that opens the file after the answer "no" announces itself
    /// with a commit of its own (``Database`` under multi-process support), which waits for the
    /// commit that asked.
    var isShared: Bool {
        descriptor.withLock { fd in
            guard fd >= 0 else { return true }
            #if os(Linux)
                var query = Self.firstByte(type: F_WRLCK)
                guard fcntl(fd, Self.getLock, &query) == 0 else { return true }
                return query.l_type != F_UNLCK
            #else
                return true
            #endif
        }
    }

    /// Runs `body`, which replaces the file, holding the lock exclusively; then holds the new
    /// file shared.
    /// - Throws: ``DatabaseError`` `.busy` (naming the file) when another process has the file
    ///   open, or what `body` throws.
    func withExclusive<T>(_ body: () throws -> T) throws -> T {
        try descriptor.withLock { fd in
            guard fd >= 0 else { throw DatabaseError(.misuse, "the database is closed", path: path) }
            guard Self.tryLock(fd, exclusive: true) else {
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
        // Read-write where allowed: a POSIX write lock needs a descriptor open for writing.
        var fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0, errno == EACCES || errno == EROFS { fd = open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            throw DatabaseError(.io, "could not open the file to lock it (errno \(errno))", path: path)
        }
        let deadline = ContinuousClock.now + timeout
        while !tryLock(fd, exclusive: false) {
            guard errno == EWOULDBLOCK || errno == EAGAIN || errno == EINTR, ContinuousClock.now < deadline else {
                close(fd)
                throw DatabaseError(.busy, "another process holds the file exclusively (a key rotation)", path: path)
            }
            usleep(1_000)
        }
        return fd
    }

    /// Takes (or converts to) the shared or exclusive lock without waiting; false with `errno` set
    /// when another process's lock is in the way.
    private static func tryLock(_ fd: Int32, exclusive: Bool) -> Bool {
        #if os(Linux)
            var request = firstByte(type: exclusive ? F_WRLCK : F_RDLCK)
            return fcntl(fd, setLock, &request) == 0
        #else
            return flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0
        #endif
    }

    #if os(Linux)
        // <fcntl.h> defines these only under _GNU_SOURCE, which the Glibc module does not set.
        private static let getLock: Int32 = 36  // F_OFD_GETLK
        private static let setLock: Int32 = 37  // F_OFD_SETLK

        /// A lock request for byte 0, which SQLite's own locks (at 1 GiB and in `-shm`) never cover.
        private static func firstByte(type: Int32) -> flock {
            var request = flock()
            request.l_type = Int16(type)
            request.l_whence = Int16(SEEK_SET)
            request.l_start = 0
            request.l_len = 1
            return request
        }
    #endif
}
