#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `command` with /bin/sh, waits for it and returns its exit status (as `waitpid` gives
/// it; 0 is success), or nil when it could not be started: for tests that restart or stop the
/// throwaway server the CI script started for them.
///
/// posix_spawn and waitpid rather than Foundation's Process, whose waitUntilExit never
/// returned here once the command had restarted the server.
func runShellCommand(_ command: String) -> Int32? {
    let words = ["/bin/sh", "-c", command]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { (word: String) in strdup(word) }
    defer { arguments.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", nil, nil, arguments + [nil], environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
}
