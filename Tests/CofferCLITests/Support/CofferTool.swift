import CofferTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The outcome of one run of the `coffer` executable.
struct ToolResult: Sendable {
    /// The exit status (or the signal number when killed by one).
    var status: Int32
    /// Everything written to standard output.
    var stdout: Data
    /// Everything written to standard error.
    var stderr: Data
    /// Whether the run was stopped for exceeding its time limit.
    var timedOut: Bool

    /// Standard output as text.
    var out: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as text.
    var err: String { String(decoding: stderr, as: UTF8.self) }

    /// Standard output parsed as one JSON object.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: stdout) as? [String: Any] else {
            throw ToolError("standard output is not a JSON object: \(out)")
        }
        return object
    }
}

/// A failure of the test harness itself.
struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs the real `coffer` binary built next to the test bundle.
enum CofferTool {
    /// The built executable: beside the test bundle (`swift test` builds every product), or in
    /// the package's `.build/debug`.
    static let binary: URL? = {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("coffer"))
        }
        candidates.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("coffer"))
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("coffer"))
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/coffer"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `coffer arguments` in `directory` and waits for it, at most `timeout`.
    ///
    /// Standard output and error go to files in `directory` (no pipe can fill up); the
    /// environment holds only `PATH`, `HOME`/`XDG_DATA_HOME` (pointing into `directory`) and
    /// `environment`.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], stdin: Data? = nil,
        timeout: Duration = .seconds(120)
    ) throws -> ToolResult {
        let running = try RunningTool(arguments, in: directory, environment: environment, stdin: stdin)
        return running.wait(timeout: timeout)
    }
}

/// A `coffer` process started in the background, for tests that interrupt it.
final class RunningTool {
    private let process = Process()
    private let stdoutURL: URL
    private let stderrURL: URL

    /// Starts `coffer arguments`.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], stdin: Data? = nil) throws {
        guard let binary = CofferTool.binary else { throw ToolError("the coffer executable was not found") }
        let id = UUID().uuidString
        stdoutURL = directory.appendingPathComponent(".run-\(id).out")
        stderrURL = directory.appendingPathComponent(".run-\(id).err")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var base = [
            "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_DATA_HOME": directory.path, "LANG": "C.UTF-8",
        ]
        base.merge(environment) { _, new in new }
        process.environment = base
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        if let stdin {
            let stdinURL = directory.appendingPathComponent(".run-\(id).in")
            try stdin.write(to: stdinURL)
            process.standardInput = try FileHandle(forReadingFrom: stdinURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
    }

    /// What the process has written to standard error so far.
    var stderrSoFar: String {
        String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self)
    }

    /// Polls until standard error contains `text`; false if the process ended or time ran out first.
    func waitForStandardError(containing text: String, timeout: Duration = .seconds(60)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stderrSoFar.contains(text) { return true }
            if !process.isRunning { return stderrSoFar.contains(text) }
            usleep(10_000)
        }
        return false
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() {
        process.interrupt()
    }

    /// Waits for the process to end, killing it after `timeout`.
    func wait(timeout: Duration = .seconds(120)) -> ToolResult {
        let timedOut = process.waitUntilExit(timeout: timeout)
        let result = ToolResult(
            status: process.terminationStatus, stdout: (try? Data(contentsOf: stdoutURL)) ?? Data(),
            stderr: (try? Data(contentsOf: stderrURL)) ?? Data(), timedOut: timedOut)
        for url in [stdoutURL, stderrURL] { try? FileManager.default.removeItem(at: url) }
        return result
    }
}
