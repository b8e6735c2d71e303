import CofferTestSupport
import Foundation

/// One run of a program: how it ended and what it printed.
struct ProgramResult {
    /// The exit status (or the signal number when killed by one).
    var status: Int32
    /// Standard output as text.
    var out: String
    /// Standard error as text.
    var err: String
    /// Whether the run was stopped for exceeding its time limit.
    var timedOut: Bool
}

/// A failure of the test harness itself.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs the package's built executables and the `swift` tool for the documentation tests.
enum Program {
    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The executable product `name`, built beside the test bundle (`swift test` builds every
    /// product) or in the package's `.build/debug`.
    static func built(_ name: String) throws -> URL {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name))
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw HarnessError("the \(name) executable was not found (build the package first)")
        }
        return found
    }

    /// The `swift` driver on `PATH`, the one running these tests.
    static func swiftTool() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw HarnessError("no swift on PATH")
    }

    /// Runs `executable arguments` in `directory` with only `environment` (plus `PATH`), and
    /// waits for it, killing it after `timeout`. Output goes through files, so no pipe fills up.
    static func run(
        _ executable: URL, _ arguments: [String] = [], in directory: URL, environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) throws -> ProgramResult {
        let id = UUID().uuidString
        let outURL = directory.appendingPathComponent(".run-\(id).out")
        let errURL = directory.appendingPathComponent(".run-\(id).err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        defer { for url in [outURL, errURL] { try? FileManager.default.removeItem(at: url) } }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
        base.merge(environment) { _, new in new }
        process.environment = base
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let timedOut = process.waitUntilExit(timeout: timeout)
        return ProgramResult(
            status: process.terminationStatus,
            out: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
            err: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self), timedOut: timedOut)
    }
}
