import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`: Foundation's `Process` fails to start children
/// under valgrind ("Bad file descriptor"), and the process suite's children must run there too
/// when it is profiled.
final class SpawnedChild {
    private let pid: pid_t
    private var status: Int32?

    /// Starts `executable` with `arguments`, inheriting this process's environment and descriptors.
    /// - Throws: ``BenchError`` when it cannot be started.
    init(executable: URL, arguments: [String]) throws {
        let argv = ([executable.path] + arguments).map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        var terminated = argv + [nil]
        let result = terminated.withUnsafeMutableBufferPointer { pointers -> Int32 in
            guard let base = pointers.baseAddress else { return EINVAL }
            return posix_spawn(&pid, executable.path, nil, nil, base, environ)
        }
        guard result == 0 else {
            throw BenchError(.io, "cannot start \(executable.lastPathComponent) (error \(result))")
        }
        self.pid = pid
    }

    /// Whether the child is still running.
    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = raw
        return false
    }

    /// Waits for the child to exit and returns its exit status (128 + the signal when killed).
    @discardableResult
    func waitUntilExit() -> Int32 {
        if status == nil {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            status = raw
        }
        let raw = status ?? 0
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }

    /// Sends SIGTERM.
    func terminate() {
        kill(pid, SIGTERM)
    }
}
