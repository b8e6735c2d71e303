import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Failures of the harness itself (binary missing, child exited on its own, …).
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One run of the `coffer-stress` child: started, optionally waited on until ready, killed.
///
/// Standard output goes to a file, not a pipe: the child's acknowledgement lines are written
/// with `write(2)` before it goes on, so every line it acknowledged is in the file when it dies,
/// and no pipe can fill up and stall it.
final class StressChild {
    /// The built `coffer-stress`: beside the test bundle (`swift test` builds every product), or
    /// in the package's `.build/debug`.
    static let binary: URL? = {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("coffer-stress"))
        }
        candidates.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("coffer-stress"))
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("coffer-stress"))
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/coffer-stress"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    private let process = Process()
    private let stdoutURL: URL
    private let stderrURL: URL

    /// Starts `coffer-stress arguments` with `environment` (keys go here, never in argv).
    /// - Throws: ``HarnessError`` when the binary is missing, or what `Process.run` throws.
    init(_ arguments: [String], environment: [String: String], logDirectory: URL) throws {
        guard let binary = Self.binary else { throw HarnessError("coffer-stress is not built") }
        let tag = UUID().uuidString
        stdoutURL = logDirectory.appendingPathComponent("child-\(tag).out")
        stderrURL = logDirectory.appendingPathComponent("child-\(tag).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: stdoutURL)
        try? FileManager.default.removeItem(at: stderrURL)
    }

    /// The complete lines the child wrote so far (a trailing partial line is left out).
    var lines: [String] {
        guard let data = FileManager.default.contents(atPath: stdoutURL.path) else { return [] }
        let text = String(decoding: data, as: UTF8.self)
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()  // after the last newline: empty or a partial line
        return parts
    }

    /// What the child wrote on standard error.
    var errorOutput: String {
        FileManager.default.contents(atPath: stderrURL.path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Waits until the child printed "ready".
    /// - Throws: ``HarnessError`` when it exits first or takes longer than `timeout`.
    func waitUntilReady(timeout: Duration = .seconds(30)) throws {
        try waitForLine(startingWith: "ready", timeout: timeout)
    }

    /// Waits until the child printed a line starting with `prefix`.
    /// - Throws: ``HarnessError`` when it exits first or takes longer than `timeout`.
    func waitForLine(startingWith prefix: String, timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while !lines.contains(where: { $0.hasPrefix(prefix) }) {
            guard process.isRunning else {
                throw HarnessError("the child exited before printing \"\(prefix)\": \(errorOutput)")
            }
            guard ContinuousClock.now < deadline else { throw HarnessError("the child never printed \"\(prefix)\"") }
            usleep(500)
        }
    }

    /// Waits for the child to exit on its own.
    /// - Throws: when it is still running after `timeout` (it is terminated then).
    func waitForExit(timeout: Duration = .seconds(30)) throws {
        if process.waitUntilExit(timeout: timeout) {
            throw HarnessError("the child did not exit within \(timeout)")
        }
    }

    /// Sends SIGKILL and waits for the child to die.
    /// - Returns: whether it was still running when killed (false: it had already exited).
    @discardableResult
    func killNow() -> Bool {
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return wasRunning && process.terminationReason == .uncaughtSignal
    }
}

/// Sleeps for `microseconds` (the random moment before a kill).
func pause(microseconds: Int) {
    guard microseconds > 0 else { return }
    usleep(useconds_t(microseconds))
}
