import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Durability across processes: a child process writes through a proxy and preferences, flushes,
/// and exits at once without closing anything, as a killed process would; the parent then opens
/// the file and finds every flushed value.
@Suite struct ProxyProcessTests {
    static let databaseVariable = "COFFER_PROXY_CHILD_DB"
    static let keyVariable = "COFFER_PROXY_CHILD_KEY"

    /// The running test executable, when it can be started again to run one test (Linux runs the
    /// `.xctest` file itself; elsewhere a runner hosts the tests and this returns nil).
    static var testExecutable: URL? {
        guard let path = CommandLine.arguments.first else { return nil }
        let url = URL(fileURLWithPath: path)
        guard url.pathExtension == "xctest", FileManager.default.isExecutableFile(atPath: url.path) else { return nil }
        return url
    }

    static var isChild: Bool { ProcessInfo.processInfo.environment[databaseVariable] != nil }

    @Test(.enabled(if: isChild, "runs only in the child process the parent test starts"))
    func proxyChildProcessWriter() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = try #require(environment[Self.databaseVariable])
        let key = try #require(environment[Self.keyVariable].flatMap { Data(base64Encoded: $0) })
        let db = try Database(url: URL(fileURLWithPath: path), options: TestSupport.rawKeyOptions(key))
        let proxy = try ConnectionProxy(database: db)
        let prefs = try Preferences(database: db, suite: "child")
        for i in 0..<200 {
            proxy.setObject("child-\(i)", forKey: "k\(i)", inCollection: "c", withMetadata: i)
        }
        prefs.set("from-child", forKey: "greeting")
        prefs.set(7, forKey: "count")
        try proxy.flush()
        try prefs.flush()
        // Leave without releasing the database, its connections or the proxy.
        _exit(0)
    }

    @Test(
        .enabled(if: !isChild && testExecutable != nil, "needs to start the test executable again"),
        .timeLimit(.minutes(2)))
    func flushedValuesSurviveTheWritingProcessExitingAbruptly() throws {
        let executable = try #require(Self.testExecutable)
        let dir = TemporaryDirectory()
        let url = dir.file("child.db")
        let key = TestSupport.randomKey()
        let output = dir.file("child-output.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--testing-library", "swift-testing", "--filter", "proxyChildProcessWriter"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.databaseVariable] = url.path
        environment[Self.keyVariable] = key.base64EncodedString()
        process.environment = environment
        let log = try FileHandle(forWritingTo: output)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = ContinuousClock.now + .seconds(90)
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? log.close()
        let childOutput = String(decoding: TestSupport.bytes(of: output).suffix(4_000), as: UTF8.self)
        try #require(process.terminationStatus == 0, "child process failed:\n\(childOutput)")

        let db = try Database(url: url, options: TestSupport.rawKeyOptions(key))
        let (count, value, metadata) = try db.newConnection().read { tx in
            (
                try tx.numberOfKeys(inCollection: "c"),
                try tx.object(forKey: "k199", inCollection: "c", as: String.self),
                try tx.metadata(forKey: "k199", inCollection: "c", as: Int.self)
            )
        }
        #expect(count == 200)
        #expect(value == "child-199")
        #expect(metadata == 199)
        let prefs = try Preferences(database: db, suite: "child")
        #expect(prefs.string(forKey: "greeting") == "from-child")
        #expect(prefs.integer(forKey: "count") == 7)
    }
}
