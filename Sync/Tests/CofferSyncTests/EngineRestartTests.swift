import Foundation
import Logging
import Testing

@testable import CofferSync

/// A real server restart (`pg_ctl restart`) while a device has queued work: the engine
/// reconnects by itself and nothing queued is lost.
///
/// Restarting the server breaks every other test's connections, so `scripts/ci/sync.sh` runs
/// this suite alone, after the others, with COFFER_SYNC_TEST_RESTART_COMMAND set.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_RESTART_COMMAND"] != nil,
        "runs alone from `bash scripts/ci/sync.sh`, which sets COFFER_SYNC_TEST_RESTART_COMMAND"
    )
)
final class EngineRestartTests {
    let directory: SyncTestDirectory
    let logger = Logger(label: "coffer.sync.restart")

    init() throws { directory = try SyncTestDirectory() }

    @Test func queuedWorkSurvivesAServerRestart() async throws {
        let command = try #require(ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_RESTART_COMMAND"])
        let admin = try #require(SyncTestServer.adminAddress)
        let a = try TestDevice(directory: directory.url, name: "a", key: .random(epoch: 1), space: UUID())
        let b = try TestDevice(directory: directory.url, name: "b", key: .random(epoch: 1), space: UUID())
        let credentials = try await SyncSetup.createSpace(replica: a.replica, admin: admin, logger: logger)
        let passphrase = Data("restart".utf8)
        let file = try await SyncSetup.enrollDevice(
            from: a.replica, passphrase: passphrase, parameters: .scrypt(n: 1 << 10, r: 8, p: 1), logger: logger)
        try SyncSetup.join(replica: b.replica, enrollmentFile: file, passphrase: passphrase)
        let engineA = try SyncEngine(replica: a.replica, logger: logger, pollInterval: .milliseconds(500))
        let engineB = try SyncEngine(replica: b.replica, logger: logger, pollInterval: .milliseconds(500))
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
        try await SyncServerAdmin(address: admin).dropSpace(spaceID: credentials.spaceID)
    }
}
