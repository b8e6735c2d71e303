import Coffer
import Foundation
import Logging
import Testing

@testable import CofferSync
@testable import coffer_sync

/// A device in a child process (`coffer-sync device-run`) killed with SIGKILL at random moments
/// while it writes and syncs against the real server, and restarted on the same database: the
/// rows it acknowledged are neither lost nor resurrected, and it converges with a device in
/// this process.
///
/// Skipped without a server: run `bash scripts/ci/sync.sh`.
@Suite(serverAvailable, .serialized) final class EngineKillTests {
    let directory: SyncTestDirectory
    let logger = Logger(label: "coffer.sync.kill")
    /// The raw key of the child's database (the same as ``TestDevice``'s).
    static let databaseKey = Data(repeating: 0x42, count: 32)
    /// The enrollment file's passphrase, handed to the child in its environment.
    static let passphrase = "kill test passphrase"

    /// Whether `STRESS=1` asked for the long run (ten kills instead of three).
    static let isStress = ProcessInfo.processInfo.environment["STRESS"].map { !$0.isEmpty && $0 != "0" } ?? false

    init() throws { directory = try SyncTestDirectory() }

    var admin: SyncServerAddress {
        get throws { try #require(SyncTestServer.adminAddress) }
    }

    /// The child's rows after operations `0..<count`, by `device-run`'s own rule.
    static func childRows(after count: Int) -> [String: String] {
        var rows: [String: String] = [:]
        for index in 0..<count {
            let operation = DeviceRunOperation(index: index)
            rows[operation.key] = operation.value
        }
        return rows
    }

    /// Every row of the `plain` collection read through `connection`, by key.
    static func plainRows(_ connection: Connection) throws -> [String: String] {
        try connection.read { tx in
            var rows: [String: String] = [:]
            for key in try tx.allKeys(inCollection: "plain") {
                rows[key] = try tx.object(forKey: key, inCollection: "plain", as: String.self)
            }
            return rows
        }
    }

    /// A random write of the in-process device on its own keys (`p0`…`p7`; a quarter are
    /// deletes), recorded in `model`, so that the child has rows to pull while it is killed.
    static func parentWrite(
        _ device: TestDevice, step: Int, random: inout SplitMix64, model: inout [String: String]
    ) throws {
        let key = "p\(Int.random(in: 0..<8, using: &random))"
        let value: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "parent \(step)"
        try device.connection.readWrite { try $0.setObject(value, forKey: key, inCollection: "plain") }
        model[key] = value
    }

    @Test func aChildKilledMidUploadAndMidPullConverges() async throws {
        var random = SplitMix64(state: 2_609)
        let first = try TestDevice(directory: directory.url, name: "parent", key: .random(epoch: 1), space: UUID())
        try await SyncTestServer.schemaReady()
        let credentials = try await SyncSetup.createSpace(replica: first.replica, admin: try admin, logger: logger)
        do {
            try await run(parent: try TestDevice(rebinding: first, to: credentials), random: &random)
        } catch {
            try? await SyncServerAdmin(address: try admin).dropSpace(spaceID: credentials.spaceID)
            throw error
        }
        try await SyncServerAdmin(address: try admin).dropSpace(spaceID: credentials.spaceID)
    }

    /// The kill test's body: runs of the child killed at random (three, ten with `STRESS=1`), a
    /// last one left to finish, then convergence of both devices with the model.
    func run(parent: TestDevice, random: inout SplitMix64) async throws {
        let file = try await SyncSetup.enrollDevice(
            from: parent.replica, passphrase: Data(Self.passphrase.utf8), parameters: EngineEndToEndTests.cheap,
            logger: logger)
        let enrollmentURL = directory.url.appendingPathComponent("child.enrollment")
        try file.write(to: enrollmentURL)
        let childDatabase = directory.url.appendingPathComponent("child.coffer")
        let kills = Self.isStress ? 10 : 3
        let operations = Self.isStress ? 500 : 160
        let arguments = [
            "device-run", "--database", childDatabase.path, "--enrollment", enrollmentURL.path,
            "--operations", "\(operations)", "--interval-ms", "3", "--poll-ms", "300",
        ]
        let environment = [
            "COFFER_SYNC_DATABASE_KEY": Self.databaseKey.map { String(format: "%02x", $0) }.joined(),
            "COFFER_SYNC_ENROLLMENT_PASSPHRASE": Self.passphrase,
        ]
        let engine = SyncEngine(
            replica: parent.replica, credentials: try #require(try parent.replica.credentials()), logger: logger,
            pollInterval: .milliseconds(300), callTimeout: .seconds(5),
            transport: PostgresTransport.factory(logger: logger))
        await engine.start()
        var parentModel: [String: String] = [:]
        var step = 0
        var acknowledged = -1
        for kill in 0..<kills {
            let child = try SyncDeviceChild(arguments, environment: environment, logDirectory: directory.url)
            try await child.wait(for: "resume") { $0.last("resume ") != nil }
            let resume = try #require(child.last("resume ").flatMap { Int($0) })
            // Every acknowledged operation survived the kill; at most one more was committed
            // without its acknowledgement reaching the output.
            #expect(resume == acknowledged + 1 || resume == acknowledged + 2, "kill \(kill): resumed at \(resume)")
            let target = resume + Int.random(in: 10..<40, using: &random)
            let deadline = ContinuousClock.now + .seconds(30)
            while child.highestAcknowledged < target {
                guard child.isRunning, ContinuousClock.now < deadline else {
                    Issue.record("the child stopped acknowledging: \(child.errorOutput)")
                    return
                }
                if Int.random(in: 0..<3, using: &random) == 0 {
                    step += 1
                    try Self.parentWrite(parent, step: step, random: &random, model: &parentModel)
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0..<40, using: &random)))
            child.killNow()
            acknowledged = max(acknowledged, child.highestAcknowledged)
        }

        let child = try SyncDeviceChild(arguments, environment: environment, logDirectory: directory.url)
        try await child.wait(for: "resume") { $0.last("resume ") != nil }
        let resume = try #require(child.last("resume ").flatMap { Int($0) })
        #expect(resume == acknowledged + 1 || resume == acknowledged + 2, "last run: resumed at \(resume)")
        while child.last("done") == nil && child.isRunning {
            step += 1
            try Self.parentWrite(parent, step: step, random: &random, model: &parentModel)
            try await Task.sleep(for: .milliseconds(10))
        }
        var expected = Self.childRows(after: operations)
        expected.merge(parentModel) { _, parent in parent }
        let digest = DeviceRunOperation.digest(expected)
        try await child.wait(for: "the model's rows (digest \(digest)) with nothing queued", timeout: .seconds(30)) {
            child in
            child.last("state ").map { $0.hasSuffix(" 0 \(digest)") } ?? false
        }
        #expect(
            try await eventually(timeout: .seconds(30)) {
                try Self.plainRows(parent.connection) == expected && parent.replica.queuedCount() == 0
            })
        child.killNow()
        await engine.stop()
        #expect(try Self.plainRows(parent.connection) == expected)

        var options = DatabaseOptions()
        options.key = .raw(Self.databaseKey)
        let childDB = try Database(url: childDatabase, options: options)
        childDB.registerCodable(String.self, forCollection: "plain", format: .binary)
        #expect(try Self.plainRows(childDB.newConnection()) == expected)
    }
}
