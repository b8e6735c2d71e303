import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of `coffer-sync device-run` (a syncing device in a child process): started, read,
/// killed with SIGKILL.
///
/// Standard output goes to a file, not a pipe: the child writes each acknowledgement with
/// `write(2)` before going on, so every line it acknowledged is in the file when it dies, and
/// no pipe can fill up and stall it.
final class SyncDeviceChild {
    /// Failures of the harness itself (binary missing, child exited on its own, a wait ran out).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The built `coffer-sync`: beside the test bundle (`swift test` builds every product), or in
    /// the package's `.build/debug`.
    static let binary: URL? = {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("coffer-sync"))
        }
        candidates.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("coffer-sync"))
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("coffer-sync"))
        }
        // Sync/Tests/CofferSyncTests/Support/this file → Sync/
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/coffer-sync"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    private let process = Process()
    private let stdoutURL: URL
    private let stderrURL: URL

    /// Starts `coffer-sync arguments` with `environment` (keys go here, never in argv), its
    /// output in files under `logDirectory`.
    /// - Throws: ``Failure`` when the binary is missing, or what `Process.run` throws.
    init(_ arguments: [String], environment: [String: String], logDirectory: URL) throws {
        guard let binary = Self.binary else {
            throw Failure(description: "coffer-sync is not built (swift build --package-path Sync)")
        }
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
        killNow()
        try? FileManager.default.removeItem(at: stdoutURL)
        try? FileManager.default.removeItem(at: stderrURL)
    }

    /// Whether the child is still running.
    var isRunning: Bool { process.isRunning }

    /// The complete lines the child wrote so far (a trailing partial line is left out).
    var lines: [String] {
        guard let data = FileManager.default.contents(atPath: stdoutURL.path) else { return [] }
        var parts = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        parts.removeLast()  // after the last newline: empty or a partial line
        return parts
    }

    /// What the child wrote on standard error.
    var errorOutput: String {
        FileManager.default.contents(atPath: stderrURL.path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The last line starting with `prefix` (without the prefix), nil when there is none yet.
    func last(_ prefix: String) -> String? {
        lines.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// The highest operation index the child acknowledged (`ack <index>`), -1 before any.
    var highestAcknowledged: Int {
        lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? -1
    }

    /// Waits, polling every 10 ms, until `condition` holds.
    /// - Throws: ``Failure`` when the child exits first or `timeout` passes.
    func wait(
        for what: String, timeout: Duration = .seconds(30), until condition: (SyncDeviceChild) throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition(self) {
            guard process.isRunning else {
                throw Failure(description: "the child exited before \(what): \(errorOutput)")
            }
            guard ContinuousClock.now < deadline else {
                throw Failure(
                    description:
                        "the child did not reach \(what) within \(timeout) (last line: \(lines.last ?? "none")): \(errorOutput)"
                )
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Sends SIGKILL and waits for the child to die (nothing when it has exited already).
    func killNow() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
