import CofferSync
import Foundation
import Logging
import PostgresNIO
import Testing

/// LISTEN/NOTIFY: a push wakes a listener; a listener and a connection come back after their
/// backend is terminated (as after a server restart, without disturbing the other tests).
@Suite(serverAvailable) struct ServerListenerTests {
    @Test func pushWakesAListener() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let wakeUps = WakeUpCounter()
            let listening = wakeUps.consume(
                SyncServerListener(address: server.devices[1].address, channel: server.channel).wakeUps()
            )
            defer { listening.cancel() }
            // The first wake-up says it listens.
            #expect(await eventually { await wakeUps.count >= 1 })
            let writer = try await server.connect(0)
            _ = try await writer.push([
                PushRequest(row: testRow(1, version: 1, device: server.devices[0].id), baseVersion: 0)
            ])
            #expect(await eventually { await wakeUps.count >= 2 })
            await writer.close()
        }
    }

    @Test func listenerAndConnectionComeBackAfterTheirBackendIsTerminated() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let wakeUps = WakeUpCounter()
            let listener = SyncServerListener(
                address: server.devices[1].address, channel: server.channel, maximumBackoff: .milliseconds(200)
            )
            let listening = wakeUps.consume(listener.wakeUps())
            defer { listening.cancel() }
            #expect(await eventually { await wakeUps.count >= 1 })
            let reader = try await server.connect(1)
            _ = try await reader.space()

            let terminated = try await server.terminateSessions(of: server.devices[1].roleName)
            #expect(terminated == 2)
            // The listener reconnects (and says so with a wake-up)…
            #expect(await eventually { await wakeUps.count >= 2 })
            // …still hears pushes…
            let writer = try await server.connect(0)
            _ = try await writer.push([
                PushRequest(row: testRow(1, version: 1, device: server.devices[0].id), baseVersion: 0)
            ])
            #expect(await eventually { await wakeUps.count >= 3 })
            // …and the device's connection works again by its next call or the one after.
            #expect(await eventually { (try? await reader.pull(after: 0, limit: 10).count) == 1 })
            await writer.close()
            await reader.close()
        }
    }

    @Test func cancellingTheConsumerStopsListening() async throws {
        try await SyncTestServer.withSpace { server in
            let wakeUps = WakeUpCounter()
            let listening = wakeUps.consume(
                SyncServerListener(address: server.devices[0].address, channel: server.channel).wakeUps()
            )
            #expect(await eventually { await wakeUps.count >= 1 })
            listening.cancel()
            await listening.value
            // Its connection goes away with it.
            let role = server.devices[0].roleName
            let gone = try await eventually {
                try await server.withAdminConnection { connection in
                    try await connection.query(
                        "SELECT 1 FROM pg_stat_activity WHERE usename = \(role)", logger: Logger(label: "t")
                    ).collect().isEmpty
                }
            }
            #expect(gone)
        }
    }

    /// Terminates every session of `role` as the admin (pg_signal_backend); how many there were.
}

/// Counts the wake-ups a listener yields, consumed by a task of its own.
actor WakeUpCounter {
    private(set) var count = 0

    private func increment() { count += 1 }

    /// Starts consuming `stream`; cancel the task to stop.
    nonisolated func consume(_ stream: AsyncStream<Void>) -> Task<Void, Never> {
        Task {
            for await _ in stream { await increment() }
        }
    }
}
