import CofferSync
import Foundation
import Testing

/// Devices enrolling and revoking devices of their own space through the definer functions.
@Suite(serverAvailable) struct ServerEnrollmentTests {
    @Test func deviceEnrollsANewDeviceThatCanLogIn() async throws {
        try await SyncTestServer.withSpace { server in
            let first = try await server.connect()
            let newcomer = SyncTestServer.newDevice(admin: server.adminAddress)
            try await first.enroll(
                deviceID: newcomer.id, roleName: newcomer.roleName, password: newcomer.address.password,
                publicKey: newcomer.publicKey
            )
            let second = try await SyncServerConnection.connect(to: newcomer.address, space: server.spaceID)
            _ = try await first.push([
                PushRequest(row: testRow(1, version: 1, device: server.devices[0].id), baseVersion: 0)
            ])
            #expect(try await second.pull(after: 0, limit: 10).count == 1)
            #expect(Set(try await second.devices().map(\.deviceID)) == [server.devices[0].id, newcomer.id])

            // The same role name or device id again is refused, and nothing changes.
            await #expect(throws: SyncError.self) {
                try await first.enroll(
                    deviceID: UUID(), roleName: newcomer.roleName, password: "another-password",
                    publicKey: newcomer.publicKey
                )
            }
            await #expect(throws: SyncError.self) {
                try await first.enroll(
                    deviceID: newcomer.id, roleName: newcomer.roleName + "_2", password: "another-password",
                    publicKey: newcomer.publicKey
                )
            }
            #expect(try await first.devices().count == 2)
            await first.close()
            await second.close()
        }
    }

    @Test func malformedEnrollmentsAreRefused() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            for role in ["postgres", "coffer_", "coffer_UPPER", "coffer_a;drop", "coffer_\"x"] {
                await #expect(throws: SyncError.self, "\(role)") {
                    try await connection.enroll(deviceID: UUID(), roleName: role, password: "pw", publicKey: Data([1]))
                }
            }
            await #expect(throws: SyncError.self) {
                try await connection.enroll(
                    deviceID: UUID(), roleName: "coffer_test_x", password: "pässword", publicKey: Data([1])
                )
            }
            await #expect(throws: SyncError.self) {
                try await connection.enroll(
                    deviceID: UUID(), roleName: "coffer_test_x", password: "pw", publicKey: Data())
            }
            #expect(try await connection.devices().count == 1)
            await connection.close()
        }
    }

    @Test func adminRevokesAndRevokingTwiceIsHarmless() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            try await server.admin.revokeDevice(spaceID: server.spaceID, deviceID: server.devices[1].id)
            try await server.admin.revokeDevice(spaceID: server.spaceID, deviceID: server.devices[1].id)
            await #expect(throws: SyncError.deviceRevoked(server: server.devices[1].address.server)) {
                try await server.connect(1)
            }
            await #expect(throws: SyncError.self) {
                try await server.admin.revokeDevice(spaceID: server.spaceID, deviceID: UUID())
            }
            #expect(
                try await server.admin.devices(spaceID: server.spaceID).map(\.revoked).sorted { !$0 && $1 } == [
                    false, true,
                ])
        }
    }
}
