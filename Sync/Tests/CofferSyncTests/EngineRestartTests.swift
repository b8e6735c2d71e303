import Foundation
import Logging
import Testing

@testable import CofferSync

/// A real server restart (`pg_ctl restart`) while a device has queued work, and in the middle of
/// a first sync: the engines reconnect by themselves and nothing is lost.
///
/// Restarting the server breaks every other test's connections, so `scripts/ci/sync.sh` runs
/// this suite alone, after the others, with COFFER_SYNC_TEST_RESTART_COMMAND set.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_RESTART_COMMAND"] != nil,
        "runs alone from `bash scripts/ci/sync.sh`, which sets COFFER_SYNC_TEST_RESTART_COMMAND"
    ),
    .serialized
)
final class EngineRestartTests {
    let directory: SyncTestDirectory
    let logger = Logger(label: "coffer.sync.restart")

    init() throws { directory = try SyncTestDirectory() }

    let command = ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_RESTART_COMMAND"] ?? "false"

    /// Two devices of a new space, the second joined through an enrollment file; no engines yet.
    func twoDevices() async throws -> (a: TestDevice, b: TestDevice, space: UUID) {
        let admin = try #require(SyncTestServer.adminAddress)
        let a = try TestDevice(directory: directory.url, name: "a", key: .random(epoch: 1), space: UUID())
        let b = try TestDevice(directory: directory.url, name: "b", key: .random(epoch: 1), space: UUID())
        let credentials = try await SyncSetup.createSpace(replica: a.replica, admin: admin, logger: logger)
        let passphrase = Data("restart".utf8)
        let file = try await SyncSetup.enrollDevice(
            from: a.replica, passphrase: passphrase, parameters: .scrypt(n: 1 << 10, r: 8, p: 1), logger: logger)
        try SyncSetup.join(replica: b.replica, enrollmentFile: file, passphrase: passphrase)
        return (a, b, credentials.spaceID)
    }

    func engines(_ devices: TestDevice...) throws -> [SyncEngine] {
        try devices.map { try SyncEngine(replica: $0.replica, logger: logger, pollInterval: .milliseconds(500)) }
    }

    @Test func queuedWorkSurvivesAServerRestart() async throws {
        let admin = try #require(SyncTestServer.adminAddress)
        let (a, b, space) = try await twoDevices()
        let engines = try engines(a, b)
        let (engineA, engineB) = (engines[0], engines[1])
        await engineA.start()
        await engineB.start()
        try a.set("before", "k0")
        try await engineA.syncNow()

        #expect(runShellCommand(command) == 0)
        for index in 1...10 { try a.set("written around the restart \(index)", "k\(index)") }

        var converged = false
        for _ in 0..<300 where !converged {
            try await Task.sleep(for: .milliseconds(100))
            converged = (try? b.notes().count) == 11 && (try? a.replica.queuedCount()) == 0
        }
        #expect(converged)
        #expect(try b.note("k10") == Note(text: "written around the restart 10"))
        await engineA.stop()
        await engineB.stop()
        try await SyncServerAdmin(address: admin).dropSpace(spaceID: space)
    }

    /// The server restarts while the first device is still uploading 10,000 rows and the second
    /// is pulling them: both reconnect, and the second ends with every row, each as written.
    @Test func aRestartInTheMiddleOfAFirstSyncLosesNothing() async throws {
        let admin = try #require(SyncTestServer.adminAddress)
        let (a, b, space) = try await twoDevices()
        let count = 10_000
        try await a.connection.readWrite { tx in
            for index in 0..<count {
                try tx.setObject(Note(text: "row \(index)"), forKey: "k\(index)", inCollection: "notes")
            }
        }
        let engines = try engines(a, b)
        for engine in engines { await engine.start() }
        // Mid-sync: the second device holds some rows and the first has not uploaded them all.
        var pulledBeforeRestart = 0
        for _ in 0..<2_000 {
            pulledBeforeRestart = try b.notes().count
            if pulledBeforeRestart > 0 { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(runShellCommand(command) == 0)
        #expect(pulledBeforeRestart < count, "the restart came before the second device had every row")

        let expected = Dictionary(uniqueKeysWithValues: (0..<count).map { ("k\($0)", "row \($0)") })
        var converged = false
        for _ in 0..<600 where !converged {
            try await Task.sleep(for: .milliseconds(100))
            converged = (try? b.notes()) == expected && (try? a.replica.queuedCount()) == 0
        }
        #expect(converged)
        #expect(try b.notes() == expected)
        for engine in engines { await engine.stop() }
        try await SyncServerAdmin(address: admin).dropSpace(spaceID: space)
    }
}
