import CofferSync
import Foundation
import PostgresNIO
import Testing

/// How connecting fails: each cause its own `SyncError`, naming the server.
@Suite(serverAvailable) struct ServerLoginTests {
    @Test func wrongPasswordIsAuthenticationFailed() async throws {
        try await SyncTestServer.withSpace { server in
            var address = server.devices[0].address
            address.password = "not-the-password"
            try await expectAuthenticationFailed(address, space: server.spaceID)
            address.username = "coffer_test_nobody_" + SyncTestServer.randomHex(bytes: 4)
            try await expectAuthenticationFailed(address, space: server.spaceID)
        }
    }

    /// Connecting with `address` fails as `.authenticationFailed`, naming the server and the
    /// server's SQLSTATE (28P01, invalid_password), never the password.
    func expectAuthenticationFailed(_ address: SyncServerAddress, space: UUID) async throws {
        let error = await #expect(throws: SyncError.self) {
            try await SyncServerConnection.connect(to: address, space: space)
        }
        guard case .authenticationFailed(let server, let reason) = error else {
            Issue.record("expected authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(server == address.server)
        #expect(reason.hasPrefix("SQLSTATE 28P01: "), "\(reason)")
        #expect(error?.localizedDescription.contains(address.password) == false)
    }

    /// The server the tests run against speaks another language than English when
    /// `scripts/ci/sync.sh` could build a locale for it (COFFER_SYNC_TEST_LC_MESSAGES), so
    /// that the login tests above prove errors are told apart by SQLSTATE, not by message.
    @Test func serverMessagesAreNotEnglishWhenALocaleWasAvailable() async throws {
        let wanted = ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_LC_MESSAGES"] ?? ""
        guard !wanted.isEmpty else {
            withKnownIssue("COFFER_SYNC_TEST_LC_MESSAGES is not set: the server's messages may be English") {
                Issue.record("the login tests ran against a server whose lc_messages was not changed")
            }
            return
        }
        try await SyncTestServer.withSpace { server in
            try await server.withRawConnection { connection in
                let rows = try await connection.query("SHOW lc_messages", logger: .init(label: "t")).collect()
                #expect(try rows.first?.decode(String.self) == wanted)
            }
            var address = server.devices[0].address
            address.password = "not-the-password"
            let error = await #expect(throws: SyncError.self) {
                try await SyncServerConnection.connect(to: address, space: server.spaceID)
            }
            // The server's own words for a wrong password are not English ("password
            // authentication failed"), yet the error is classified.
            guard case .authenticationFailed(_, let reason) = error else {
                Issue.record("expected authenticationFailed, got \(String(describing: error))")
                return
            }
            #expect(!reason.contains("password authentication failed"), "\(reason)")
        }
    }

    @Test func revokedDeviceIsDeviceRevoked() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let survivor = try await server.connect(0)
            let doomed = try await server.connect(1)
            try await survivor.revoke(deviceID: server.devices[1].id)
            // A new login is refused by PostgreSQL (NOLOGIN).
            await #expect(throws: SyncError.deviceRevoked(server: server.devices[1].address.server)) {
                try await server.connect(1)
            }
            // The session it still had sees nothing and is told so.
            await #expect(throws: SyncError.deviceRevoked(server: server.devices[1].address.server)) {
                try await doomed.pull(after: 0, limit: 10)
            }
            await #expect(throws: SyncError.deviceRevoked(server: server.devices[1].address.server)) {
                try await doomed.push([
                    PushRequest(row: testRow(1, version: 1, device: server.devices[1].id), baseVersion: 0)
                ])
            }
            let devices = try await survivor.devices()
            #expect(devices.map(\.revoked) == devices.map { $0.deviceID == server.devices[1].id })
            await survivor.close()
            await doomed.close()
        }
    }

    @Test func deviceOfAnotherSpaceIsSpaceNotFound() async throws {
        try await SyncTestServer.withSpace { server in
            let elsewhere = UUID()
            await #expect(throws: SyncError.spaceNotFound(space: elsewhere)) {
                try await SyncServerConnection.connect(to: server.devices[0].address, space: elsewhere)
            }
            // The admin owns the schema but is no device.
            await #expect(throws: SyncError.spaceNotFound(space: server.spaceID)) {
                try await SyncServerConnection.connect(to: server.adminAddress, space: server.spaceID)
            }
        }
    }

    @Test func closedPortIsServerUnreachable() async throws {
        var address = try #require(SyncTestServer.adminAddress)
        address.port = 1
        let error = await #expect(throws: SyncError.self) {
            try await SyncServerConnection.connect(to: address, space: UUID())
        }
        guard case .serverUnreachable(let server, _) = error else {
            Issue.record("expected serverUnreachable, got \(String(describing: error))")
            return
        }
        #expect(server == address.server)
        #expect(error?.localizedDescription.contains(address.password) == false)
    }

    @Test func closedConnectionRefusesFurtherCalls() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            await connection.close()
            await #expect(throws: SyncError.self) { try await connection.space() }
        }
    }
}
