import CofferSync
import Foundation
import Testing

/// A real server restart (`pg_ctl restart`): the connection and the listener come back.
///
/// Restarting the server breaks every other test's connections, so `scripts/ci/sync.sh` runs
/// this suite alone, after the others, with COFFER_SYNC_TEST_RESTART_COMMAND set to the command
/// that restarts its cluster.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_RESTART_COMMAND"] != nil,
        "runs alone from `bash scripts/ci/sync.sh`, which sets COFFER_SYNC_TEST_RESTART_COMMAND"
    )
)
struct ServerRestartTests {
    @Test func connectionAndListenerComeBackAfterARestart() async throws {
        let command = try #require(ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_RESTART_COMMAND"])
        try await SyncTestServer.withSpace(devices: 2) { server in
            let wakeUps = WakeUpCounter()
            let listener = SyncServerListener(
                address: server.devices[1].address, channel: server.channel, maximumBackoff: .milliseconds(500)
            )
            let listening = wakeUps.consume(listener.wakeUps())
            defer { listening.cancel() }
            #expect(await eventually { await wakeUps.count >= 1 })
            let writer = try await server.connect(0)
            _ = try await writer.push([
                PushRequest(row: testRow(1, version: 1, device: server.devices[0].id), baseVersion: 0)
            ])
            #expect(await eventually { await wakeUps.count >= 2 })

            restart(with: command)

            // The listener reconnects by itself and says so…
            #expect(await eventually(timeout: .seconds(30)) { await wakeUps.count >= 3 })
            // …the writer's next calls reconnect (the first may still meet the old connection)…
            let pushed = await eventually(timeout: .seconds(30)) {
                let outcome = try? await writer.push([
                    PushRequest(row: testRow(2, version: 1, device: server.devices[0].id), baseVersion: 0)
                ])
                return outcome == [.accepted(sequence: 2)]
            }
            #expect(pushed)
            // …and the listener hears pushes made after the restart.
            #expect(await eventually { await wakeUps.count >= 4 })
            let reader = try await server.connect(1)
            #expect(try await reader.pull(after: 0, limit: 10).map(\.sequence) == [1, 2])
            await reader.close()
            await writer.close()
        }
    }

    /// Runs `command` (the cluster's restart) and checks that it succeeded.
    private func restart(with command: String) {
        #expect(runShellCommand(command) == 0, "\(command)")
    }
}
