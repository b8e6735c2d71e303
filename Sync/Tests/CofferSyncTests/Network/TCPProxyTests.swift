import CofferSync
import Foundation
import Testing

/// What the test proxy does to a device's connection and listener.
///
/// It forwards; pausing holds a call until resumed; severing fails the call in flight and the
/// device reconnects; a listener wakes again after a sever. The engine's flaky-network tests
/// rely on each of these.
@Suite(serverAvailable) struct TCPProxyTests {
    @Test func aDevicePushesAndPullsThroughTheProxy() async throws {
        try await SyncTestServer.withSpace { server in
            try await withTCPProxy(to: server.devices[0].address) { proxy in
                let device = try await SyncServerConnection.connect(
                    to: proxy.address(for: server.devices[0].address), space: server.spaceID
                )
                let outcomes = try await device.push([
                    PushRequest(row: testRow(1, version: 1, device: server.devices[0].id), baseVersion: 0),
                    PushRequest(row: testRow(2, version: 1, device: server.devices[0].id), baseVersion: 0),
                ])
                #expect(outcomes == [.accepted(sequence: 1), .accepted(sequence: 2)])
                #expect(try await device.pull(after: 0, limit: 10).map(\.rowID) == [testRowID(1), testRowID(2)])
                #expect(try await proxy.connectionCount() == 1)
                await device.close()
            }
        }
    }

    @Test func pausingHoldsACallUntilResumed() async throws {
        try await SyncTestServer.withSpace { server in
            try await withTCPProxy(to: server.devices[0].address) { proxy in
                let device = try await SyncServerConnection.connect(
                    to: proxy.address(for: server.devices[0].address), space: server.spaceID
                )
                try await proxy.pause()
                let row = testRow(1, version: 1, device: server.devices[0].id)
                let push = Task { try await device.push([PushRequest(row: row, baseVersion: 0)]) }
                // The request reached the proxy and stays there…
                #expect(try await eventually { try await proxy.heldByteCount() > 0 })
                #expect(try await value(of: push, within: .milliseconds(500)) == nil)
                // …and the server has not seen it.
                #expect(try await server.admin.spaces().first { $0.spaceID == server.spaceID }?.lastSequence == 0)

                try await proxy.resume()
                #expect(try await value(of: push, within: .seconds(10)) == [.accepted(sequence: 1)])
                #expect(try await proxy.heldByteCount() == 0)
                await device.close()
            }
        }
    }

    @Test func severingFailsTheCallInFlightAndTheNextCallReconnects() async throws {
        try await SyncTestServer.withSpace { server in
            try await withTCPProxy(to: server.devices[0].address) { proxy in
                let device = try await SyncServerConnection.connect(
                    to: proxy.address(for: server.devices[0].address), space: server.spaceID
                )
                try await proxy.pause()
                let lost = testRow(1, version: 1, device: server.devices[0].id)
                let push = Task { try await device.push([PushRequest(row: lost, baseVersion: 0)]) }
                #expect(try await eventually { try await proxy.heldByteCount() > 0 })

                try await proxy.sever()
                let failure = await #expect(throws: SyncError.self) {
                    try await value(of: push, within: .seconds(10))
                }
                guard case .serverUnreachable? = failure else {
                    Issue.record("expected serverUnreachable, got \(String(describing: failure))")
                    return
                }
                #expect(try await proxy.connectionCount() == 0)

                // The held request died with the connection; the next call opens a new one.
                try await proxy.resume()
                let row = testRow(2, version: 1, device: server.devices[0].id)
                #expect(try await device.push([PushRequest(row: row, baseVersion: 0)]) == [.accepted(sequence: 1)])
                #expect(try await device.pull(after: 0, limit: 10).map(\.rowID) == [testRowID(2)])
                #expect(try await proxy.connectionCount() == 1)
                await device.close()
            }
        }
    }

    @Test func severingAnIdleConnectionCostsAtMostOneFailedCall() async throws {
        try await SyncTestServer.withSpace { server in
            try await withTCPProxy(to: server.devices[0].address) { proxy in
                let device = try await SyncServerConnection.connect(
                    to: proxy.address(for: server.devices[0].address), space: server.spaceID
                )
                try await proxy.sever()
                // Whether the first call fails depends on whether the client noticed the reset
                // before sending; if it fails, it says the server is unreachable.
                do {
                    _ = try await device.space()
                } catch let error as SyncError {
                    guard case .serverUnreachable = error else {
                        Issue.record("expected serverUnreachable, got \(error)")
                        return
                    }
                }
                #expect(try await device.space().lastSequence == 0)
                await device.close()
            }
        }
    }

    @Test func aListenerWakesAgainAfterASever() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            try await withTCPProxy(to: server.devices[1].address) { proxy in
                let wakeUps = WakeUpCounter()
                let listener = SyncServerListener(
                    address: proxy.address(for: server.devices[1].address), channel: server.channel,
                    maximumBackoff: .milliseconds(200)
                )
                let listening = wakeUps.consume(listener.wakeUps())
                defer { listening.cancel() }
                #expect(await eventually { await wakeUps.count >= 1 })

                try await proxy.sever()
                // The reconnection's own wake-up…
                #expect(await eventually { await wakeUps.count >= 2 })
                #expect(try await eventually { try await proxy.connectionCount() == 1 })
                // …then one for a push made after it (straight to the server, not through the proxy).
                let writer = try await server.connect(0)
                _ = try await writer.push([
                    PushRequest(row: testRow(1, version: 1, device: server.devices[0].id), baseVersion: 0)
                ])
                #expect(await eventually { await wakeUps.count >= 3 })
                await writer.close()
            }
        }
    }
}
