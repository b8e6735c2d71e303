import CofferSync
import Foundation
import Logging
import PostgresNIO
import Testing

/// A push that PostgreSQL fails to break a deadlock (SQLSTATE 40P01) runs again and succeeds.
@Suite(serverAvailable) struct ServerDeadlockTests {
    /// A push that deadlocks with an admin's transaction and loses is retried and accepted.
    ///
    /// The admin locks a row, the push locks its space and waits for that row, then the admin
    /// asks for the space: a cycle. The push waited first, so its deadlock check (after
    /// `deadlock_timeout`, 1 s by default) runs first and fails the push's transaction, which
    /// lets the admin's statement through; the push's retry then finds the way clear.
    @Test func aPushChosenAsADeadlockVictimIsRetried() async throws {
        try await SyncTestServer.withSpace { server in
            let device = try await server.connect()
            let d0 = server.devices[0].id
            _ = try await device.push([PushRequest(row: testRow(1, version: 1, device: d0), baseVersion: 0)])
            let logger = Logger(label: "coffer.sync.tests")
            let adminGotTheSpace = try await server.withAdminConnection { admin in
                _ = try await admin.query("BEGIN", logger: logger).collect()
                _ = try await admin.query(
                    """
                    SELECT 1 FROM coffer_sync.rows
                    WHERE space_id = \(server.spaceID) AND row_id = \(ByteBuffer(bytes: testRowID(1))) FOR UPDATE
                    """,
                    logger: logger
                ).collect()
                let pushing = Task {
                    try await device.push([PushRequest(row: testRow(1, version: 2, device: d0), baseVersion: 1)])
                }
                // Until the push waits for the admin's row lock (with the space's lock held).
                let waiting = try await eventually {
                    let rows = try await admin.query(
                        """
                        SELECT EXISTS (
                            SELECT 1 FROM pg_catalog.pg_locks
                            WHERE NOT granted AND pg_backend_pid() = ANY (pg_blocking_pids(pid)))
                        """,
                        logger: logger
                    ).collect()
                    return try rows.first?.decode(Bool.self) == true
                }
                #expect(waiting)
                let gotTheSpace: Bool
                do {
                    _ = try await admin.query(
                        "SELECT 1 FROM coffer_sync.spaces WHERE space_id = \(server.spaceID) FOR UPDATE",
                        logger: logger
                    ).collect()
                    gotTheSpace = true
                } catch {
                    gotTheSpace = false
                }
                _ = try await admin.query("ROLLBACK", logger: logger).collect()
                let outcomes = try await pushing.value
                #expect(outcomes == [.accepted(sequence: 2)])
                return gotTheSpace
            }
            // The admin's statement went through only because the push's transaction was the
            // one PostgreSQL failed: the accepted outcome above came from a retry.
            #expect(adminGotTheSpace)
            #expect(try await device.pull(after: 0, limit: 10).map(\.version) == [2])
            await device.close()
        }
    }
}
