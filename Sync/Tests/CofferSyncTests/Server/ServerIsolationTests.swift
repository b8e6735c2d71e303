import CofferSync
import Foundation
import Logging
import PostgresNIO
import Testing

/// Row-level security: a device of space A, sending hand-written SQL over its own connection,
/// can neither read nor change anything of space B, nor reach B through the definer functions.
@Suite(serverAvailable) struct ServerIsolationTests {
    private let logger = Logger(label: "coffer.sync.tests")

    @Test func deviceOfOneSpaceCannotTouchAnother() async throws {
        try await SyncTestServer.withSpace(devices: 1) { spaceA in
            try await SyncTestServer.withSpace(devices: 2) { spaceB in
                try await seed(spaceA)
                try await seed(spaceB)
                let before = try await snapshot(of: spaceB)
                let b = spaceB.spaceID.uuidString
                let bDevice = spaceB.devices[1]
                try await spaceA.withRawConnection(0) { connection in
                    // Reading: B's rows are invisible in every table, with or without a filter.
                    for table in ["spaces", "devices", "space_keys", "rows"] {
                        #expect(
                            try await count(connection, "SELECT * FROM coffer_sync.\(table) WHERE space_id = '\(b)'")
                                == 0)
                        #expect(
                            try await count(
                                connection, "SELECT * FROM coffer_sync.\(table) WHERE space_id <> '\(spaceA.spaceID)'"
                            ) == 0
                        )
                    }
                    // Writing B's rows: updates and deletes find nothing to change.
                    for statement in [
                        "UPDATE coffer_sync.rows SET ciphertext = '\\x00' WHERE space_id = '\(b)' RETURNING 1",
                        "DELETE FROM coffer_sync.rows WHERE space_id = '\(b)' RETURNING 1",
                        "UPDATE coffer_sync.spaces SET last_seq = 0, channel = 'coffer_00' WHERE space_id = '\(b)' RETURNING 1",
                        "DELETE FROM coffer_sync.space_keys WHERE space_id = '\(b)' RETURNING 1",
                    ] {
                        #expect(try await count(connection, statement) == 0, "\(statement)")
                    }
                    // Inserting into B, or moving its own rows to B, breaks the policies' WITH CHECK.
                    let rowID = "\\x" + String(repeating: "ab", count: 32)
                    let refusedByPolicy = [
                        """
                        INSERT INTO coffer_sync.rows (space_id, row_id, version, device_id, deleted, key_epoch, ciphertext, seq)
                        VALUES ('\(b)', '\(rowID)', 1, '\(spaceA.devices[0].id)', false, 1, '\\x00', 99)
                        """,
                        "UPDATE coffer_sync.rows SET space_id = '\(b)' WHERE space_id = '\(spaceA.spaceID)'",
                        """
                        INSERT INTO coffer_sync.space_keys (space_id, key_epoch, device_id, sealed_key)
                        VALUES ('\(b)', 1, '\(bDevice.id)', '\\x00')
                        """,
                        "UPDATE coffer_sync.spaces SET space_id = '\(b)' WHERE space_id = '\(spaceA.spaceID)'",
                    ]
                    for statement in refusedByPolicy {
                        #expect(await sqlState(connection, statement) == "42501", "\(statement)")
                    }
                    // What devices have no privilege for at all.
                    let refusedByPrivilege = [
                        "INSERT INTO coffer_sync.spaces (space_id, key_epoch, key_check, channel) VALUES (gen_random_uuid(), 1, '\\x00', 'coffer_01')",
                        "DELETE FROM coffer_sync.spaces WHERE space_id = '\(b)'",
                        "UPDATE coffer_sync.devices SET revoked_at = now() WHERE space_id = '\(b)'",
                        "DELETE FROM coffer_sync.devices WHERE space_id = '\(b)'",
                        "INSERT INTO coffer_sync.devices (space_id, device_id, role_name, public_key) VALUES ('\(b)', gen_random_uuid(), 'coffer_x', '\\x00')",
                        "UPDATE coffer_sync.space_keys SET sealed_key = '\\x00' WHERE space_id = '\(b)'",
                        "UPDATE coffer_sync.meta SET value = '2'",
                        "DELETE FROM coffer_sync.meta",
                        "INSERT INTO coffer_sync.meta VALUES ('x', 'y')",
                        "TRUNCATE coffer_sync.rows",
                        "SELECT coffer_sync.create_device('\(b)', gen_random_uuid(), 'coffer_intruder', 'x', '\\x00')",
                        "SELECT coffer_sync.revoke_device_in('\(b)', '\(bDevice.id)')",
                        "ALTER ROLE \(bDevice.roleName) NOLOGIN",
                        "ALTER ROLE \(bDevice.roleName) PASSWORD 'taken'",
                        "SET ROLE \(bDevice.roleName)",
                        "ALTER TABLE coffer_sync.rows DISABLE ROW LEVEL SECURITY",
                        "DROP POLICY own_space ON coffer_sync.rows",
                        "CREATE TABLE coffer_sync.mine (a int)",
                    ]
                    for statement in refusedByPrivilege {
                        #expect(await sqlState(connection, statement) == "42501", "\(statement)")
                    }
                    // The definer functions act only within the caller's own space.
                    #expect(
                        await sqlState(connection, "SELECT coffer_sync.revoke_device('\(bDevice.id)')") == "CS004"
                    )
                    // The group role's privileges change nothing: row security follows the login.
                    _ = try await count(connection, "SET ROLE coffer_sync_device")
                    #expect(try await count(connection, "SELECT * FROM coffer_sync.rows WHERE space_id = '\(b)'") == 0)
                    #expect(
                        try await count(connection, "SELECT * FROM coffer_sync.devices WHERE space_id = '\(b)'") == 0)
                }
                #expect(try await snapshot(of: spaceB) == before)
                // And B's device still logs in and works.
                let connection = try await spaceB.connect(1)
                #expect(try await connection.pull(after: 0, limit: 10).count == 2)
                await connection.close()
            }
        }
    }

    @Test func enrollingThroughAnotherSpacesDeviceStaysInThatDevicesSpace() async throws {
        try await SyncTestServer.withSpace { spaceA in
            try await SyncTestServer.withSpace { spaceB in
                let newcomer = SyncTestServer.newDevice(admin: spaceA.adminAddress)
                let a = try await spaceA.connect()
                try await a.enroll(
                    deviceID: newcomer.id, roleName: newcomer.roleName, password: newcomer.address.password,
                    publicKey: newcomer.publicKey
                )
                await a.close()
                // The newcomer belongs to A: B refuses it.
                await #expect(throws: SyncError.spaceNotFound(space: spaceB.spaceID)) {
                    try await SyncServerConnection.connect(to: newcomer.address, space: spaceB.spaceID)
                }
                let newcomerInA = try await SyncServerConnection.connect(to: newcomer.address, space: spaceA.spaceID)
                #expect(try await newcomerInA.devices().count == 2)
                await newcomerInA.close()
            }
        }
    }

    @Test func deviceCannotMoveItsOwnSpaceBackwards() async throws {
        try await SyncTestServer.withSpace { server in
            try await seed(server)
            try await server.withRawConnection { connection in
                #expect(await sqlState(connection, "UPDATE coffer_sync.spaces SET last_seq = 0") == "CS003")
                #expect(await sqlState(connection, "UPDATE coffer_sync.spaces SET key_epoch = 3") == "CS003")
                #expect(await sqlState(connection, "UPDATE coffer_sync.spaces SET key_epoch = 0") != nil)
            }
            let connection = try await server.connect()
            #expect(try await connection.space().lastSequence == 2)
            await connection.close()
        }
    }

    /// Two rows and a sealed key in `server`'s space, written by its first device.
    private func seed(_ server: SyncTestServer) async throws {
        let connection = try await server.connect()
        let device = server.devices[0].id
        _ = try await connection.push([
            PushRequest(row: testRow(1, version: 1, device: device), baseVersion: 0),
            PushRequest(row: testRow(2, version: 1, device: device), baseVersion: 0),
        ])
        await connection.close()
        try await server.withAdminConnection { connection in
            try await connection.query(
                """
                INSERT INTO coffer_sync.space_keys (space_id, key_epoch, device_id, sealed_key)
                VALUES (\(server.spaceID), 1, \(device), \(Data([1, 2, 3])))
                """,
                logger: logger
            )
        }
    }

    /// Everything stored for `server`'s space, read as the admin.
    private func snapshot(of server: SyncTestServer) async throws -> [String] {
        try await server.withAdminConnection { connection in
            var lines: [String] = []
            for table in ["spaces", "devices", "space_keys", "rows"] {
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "SELECT t::text FROM coffer_sync.\(table) AS t WHERE space_id = '\(server.spaceID)' ORDER BY 1"
                    ),
                    logger: logger
                )
                for try await line in rows.decode(String.self) { lines.append(table + " " + line) }
            }
            let roles = try await connection.query(
                "SELECT rolname || ' ' || rolcanlogin::text FROM pg_roles WHERE rolname LIKE 'coffer_test_%' ORDER BY 1",
                logger: logger
            )
            let names = Set(server.devices.map(\.roleName))
            for try await line in roles.decode(String.self) where names.contains(String(line.prefix { $0 != " " })) {
                lines.append(line)
            }
            return lines
        }
    }

    /// The number of rows `sql` returns.
    private func count(_ connection: PostgresConnection, _ sql: String) async throws -> Int {
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().count
    }

    /// The SQLSTATE `sql` fails with, nil when it succeeds.
    private func sqlState(_ connection: PostgresConnection, _ sql: String) async -> String? {
        do {
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
            return nil
        } catch let error as PSQLError {
            return error.serverInfo?[.sqlState] ?? "\(error.code)"
        } catch {
            return "\(error)"
        }
    }
}
