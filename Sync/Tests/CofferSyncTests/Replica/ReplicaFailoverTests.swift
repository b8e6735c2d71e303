import CofferSync
import Foundation
import Logging
import PostgresNIO
import Testing

/// Failover to a streaming-replication standby, as Docs/ScalingOut.md describes it: rows pushed
/// on the primary are on the standby, and after the primary stops and the standby is promoted,
/// the same device (behind one address, moved like a DNS name) pulls every row with the same
/// sequence numbers, pushes more, and its listener wakes again.
///
/// Needs a primary and a synchronous standby: `bash Sync/scripts/replica-check.sh` starts both
/// and sets the two variables this suite reads.
@Suite(
    .enabled(
        if: ReplicaCluster.fromEnvironment != nil,
        """
        needs a primary and a standby: run `bash Sync/scripts/replica-check.sh` (sets \
        COFFER_SYNC_TEST_REPLICA_URLS and COFFER_SYNC_TEST_REPLICA_STOP_PRIMARY)
        """
    )
)
struct ReplicaFailoverTests {
    @Test func aPromotedStandbyServesEveryRowAndTakesNewPushes() async throws {
        let cluster = try #require(ReplicaCluster.fromEnvironment)
        let admin = SyncServerAdmin(address: cluster.primary)
        let spaceID = UUID()
        let channel = "coffer_" + SyncTestServer.randomHex(bytes: 16)
        try await admin.createSpace(
            spaceID: spaceID, keyCheck: Data(SyncTestServer.randomHex(bytes: 32).utf8), channel: channel
        )
        let device = try await SyncTestServer.enroll(in: spaceID, admin: admin)

        try await withTCPProxy(to: cluster.primary) { front in
            let connection = try await SyncServerConnection.connect(
                to: front.address(for: device.address), space: spaceID
            )
            let wakeUps = WakeUpCounter()
            let listener = SyncServerListener(
                address: front.address(for: device.address), channel: channel, maximumBackoff: .milliseconds(200)
            )
            let listening = wakeUps.consume(listener.wakeUps())
            defer { listening.cancel() }
            #expect(await eventually { await wakeUps.count >= 1 })

            // Ten new rows, then new versions of three of them: sequence numbers 1…13.
            let created = try await connection.push(
                (1...10).map { PushRequest(row: testRow($0, version: 1, device: device.id), baseVersion: 0) }
            )
            #expect(created == (1...10).map { .accepted(sequence: Int64($0)) })
            let updated = try await connection.push(
                (1...3).map { PushRequest(row: testRow($0, version: 2, device: device.id), baseVersion: 1) }
            )
            #expect(updated == (11...13).map { .accepted(sequence: Int64($0)) })
            let onPrimary = try await connection.pull(after: 0, limit: 100)
            #expect(onPrimary.count == 10)

            // With synchronous_commit = remote_apply an accepted push is already visible on the
            // standby, where the device's role (replicated with everything else) logs in too.
            try await checkStandby(cluster, device: device, space: spaceID, channel: channel, holds: onPrimary)

            // The primary goes away: the device's next call says the server is unreachable.
            #expect(runShellCommand(cluster.stopPrimary) == 0, "stopping the primary")
            let outage = await #expect(throws: SyncError.self) { try await connection.space() }
            let unreachable = if case .serverUnreachable? = outage { true } else { false }
            #expect(unreachable, "expected serverUnreachable during the outage, got \(String(describing: outage))")

            #expect(try await promote(cluster.standby))
            try await front.redirect(toHost: cluster.standby.host, port: cluster.standby.port)
            let wakeUpsBeforeFailover = await wakeUps.count

            // The same connection reconnects by its next call and finds every row unchanged…
            #expect(try await connection.pull(after: 0, limit: 100) == onPrimary)
            #expect(try await connection.space().lastSequence == 13)
            // …the listener is back…
            #expect(await eventually(timeout: .seconds(20)) { await wakeUps.count > wakeUpsBeforeFailover })
            let wakeUpsAfterFailover = await wakeUps.count
            // …and the sequence goes on where the primary left it, versions checked as before.
            let more = try await connection.push([
                PushRequest(row: testRow(11, version: 1, device: device.id), baseVersion: 0),
                PushRequest(row: testRow(1, version: 3, device: device.id), baseVersion: 2),
                PushRequest(row: testRow(2, version: 2, device: device.id), baseVersion: 1),
            ])
            #expect(more.prefix(2) == [.accepted(sequence: 14), .accepted(sequence: 15)])
            guard case .conflict(let current)? = more.last else {
                Issue.record("a push on a stale base must conflict, got \(more)")
                return
            }
            #expect(current.version == 2)
            #expect(try await connection.pull(after: 13, limit: 100).map(\.sequence) == [14, 15])
            #expect(await eventually { await wakeUps.count > wakeUpsAfterFailover })
            await connection.close()
        }
        try await SyncServerAdmin(address: cluster.standby).dropSpace(spaceID: spaceID)
    }

    /// Checks that the standby serves `rows` to the device and refuses its writes and LISTEN.
    private func checkStandby(
        _ cluster: ReplicaCluster, device: SyncTestServer.Device, space: UUID, channel: String,
        holds rows: [ServerRow]
    ) async throws {
        var onStandby = device.address
        onStandby.host = cluster.standby.host
        onStandby.port = cluster.standby.port
        let reader = try await SyncServerConnection.connect(to: onStandby, space: space)
        #expect(try await reader.pull(after: 0, limit: 100) == rows)
        #expect(try await reader.space().lastSequence == 13)
        // A hot standby is read-only: a push fails with SQLSTATE 25006 and writes nothing.
        let refusal = await #expect(throws: SyncError.self) {
            try await reader.push([PushRequest(row: testRow(99, version: 1, device: device.id), baseVersion: 0)])
        }
        let readOnly = if case .server(code: "25006", _)? = refusal { true } else { false }
        #expect(readOnly, "expected a read-only refusal (25006), got \(String(describing: refusal))")
        await reader.close()
        // Nor can a listener listen there: LISTEN is refused during recovery.
        let listenRefusal = await #expect(throws: PSQLError.self) {
            try await SyncTestServer.withRawConnection(onStandby) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "LISTEN \(channel)"), logger: Logger(label: "t"))
                    .collect()
            }
        }
        #expect(listenRefusal?.serverInfo?[.sqlState] == "25006")
    }

    /// Promotes the standby with `pg_promote()` (the admin role was granted EXECUTE on it),
    /// waiting until it accepts writes; whether it was promoted.
    private func promote(_ standby: SyncServerAddress) async throws -> Bool {
        try await SyncTestServer.withRawConnection(standby) { connection in
            let rows = try await connection.query("SELECT pg_promote(true, 60)", logger: Logger(label: "t"))
            for try await promoted in rows.decode(Bool.self) { return promoted }
            return false
        }
    }
}

/// The primary and the standby `Sync/scripts/replica-check.sh` started, as the admin role.
struct ReplicaCluster {
    /// The admin role on the primary.
    let primary: SyncServerAddress
    /// The admin role on the standby (the same role: roles replicate).
    let standby: SyncServerAddress
    /// A shell command that stops the primary.
    let stopPrimary: String

    /// The cluster from COFFER_SYNC_TEST_REPLICA_URLS (the primary's and the standby's admin
    /// URLs, separated by a space) and COFFER_SYNC_TEST_REPLICA_STOP_PRIMARY; nil without them.
    static let fromEnvironment: ReplicaCluster? = {
        let environment = ProcessInfo.processInfo.environment
        guard let urls = environment["COFFER_SYNC_TEST_REPLICA_URLS"]?.split(separator: " "), urls.count == 2,
            let primary = try? SyncServerAddress(url: String(urls[0])),
            let standby = try? SyncServerAddress(url: String(urls[1])),
            let stopPrimary = environment["COFFER_SYNC_TEST_REPLICA_STOP_PRIMARY"]
        else { return nil }
        return ReplicaCluster(primary: primary, standby: standby, stopPrimary: stopPrimary)
    }()
}
