import CofferSync
import Foundation
import Logging
import PostgresNIO
import Testing

/// A space on the test server with fresh device roles, made per test and dropped after it.
///
/// The server is the one `scripts/ci/sync.sh` starts: it exports the admin role's URL as
/// COFFER_SYNC_TEST_ADMIN_URL. Without it the server tests are skipped (`serverAvailable`).
struct SyncTestServer: Sendable {
    /// A device role of the test space.
    struct Device: Sendable {
        let id: UUID
        let roleName: String
        let publicKey: Data
        let address: SyncServerAddress
    }

    /// The admin URL from the environment, nil when there is no test server.
    static let adminURL = ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_ADMIN_URL"]

    /// The admin address, nil when there is no test server (or its URL does not parse).
    static let adminAddress: SyncServerAddress? = adminURL.flatMap { try? SyncServerAddress(url: $0) }

    /// Applies the schema once per test process (every test needs it; CI applied it already).
    private static let schemaApplied = Task<Void, any Error> {
        guard let adminAddress else { return }
        try await SyncServerAdmin(address: adminAddress).initServer()
    }

    /// Waits until this process applied the schema (once, at the first call of any test):
    /// re-applying it takes table locks, so a test that creates spaces without this helper's
    /// `withSpace` (the engine tests, through `SyncSetup`) must not race it into a deadlock.
    static func schemaReady() async throws {
        try await schemaApplied.value
    }

    let admin: SyncServerAdmin
    let adminAddress: SyncServerAddress
    let spaceID: UUID
    let channel: String
    let keyCheck: Data
    let devices: [Device]

    /// Runs `body` with a new space holding `deviceCount` devices, then drops the space and
    /// its roles whether `body` threw or not.
    static func withSpace<Result: Sendable>(
        devices deviceCount: Int = 1,
        _ body: (SyncTestServer) async throws -> Result
    ) async throws -> Result {
        let server = try await make(deviceCount: deviceCount)
        do {
            let result = try await body(server)
            try await server.admin.dropSpace(spaceID: server.spaceID)
            return result
        } catch {
            try? await server.admin.dropSpace(spaceID: server.spaceID)
            throw error
        }
    }

    private static func make(deviceCount: Int) async throws -> SyncTestServer {
        let adminAddress = try #require(adminAddress, "COFFER_SYNC_TEST_ADMIN_URL is not a postgres:// URL")
        try await schemaApplied.value
        let admin = SyncServerAdmin(address: adminAddress)
        let spaceID = UUID()
        let channel = "coffer_" + randomHex(bytes: 16)
        let keyCheck = Data(randomHex(bytes: 32).utf8)
        try await admin.createSpace(spaceID: spaceID, keyCheck: keyCheck, channel: channel)
        var devices: [Device] = []
        do {
            for _ in 0..<deviceCount {
                devices.append(try await enroll(in: spaceID, admin: admin))
            }
        } catch {
            try? await admin.dropSpace(spaceID: spaceID)
            throw error
        }
        return SyncTestServer(
            admin: admin, adminAddress: adminAddress, spaceID: spaceID, channel: channel, keyCheck: keyCheck,
            devices: devices
        )
    }

    /// A new device of `spaceID`, enrolled by the admin.
    static func enroll(in spaceID: UUID, admin: SyncServerAdmin) async throws -> Device {
        let device = newDevice(admin: admin.address)
        try await admin.enrollDevice(
            spaceID: spaceID, deviceID: device.id, roleName: device.roleName, password: device.address.password,
            publicKey: device.publicKey
        )
        return device
    }

    /// A device id, unique role name, password and public key, not yet on the server.
    static func newDevice(admin: SyncServerAddress) -> Device {
        let roleName = "coffer_test_" + randomHex(bytes: 8)
        var address = admin
        address.username = roleName
        address.password = randomHex(bytes: 16)
        return Device(id: UUID(), roleName: roleName, publicKey: Data(randomHex(bytes: 32).utf8), address: address)
    }

    /// Connects as device `index` of the space.
    func connect(_ index: Int = 0) async throws -> SyncServerConnection {
        try await SyncServerConnection.connect(to: devices[index].address, space: spaceID)
    }

    /// Runs `body` over a raw postgres-nio connection logged in as device `index`, for tests
    /// that send hand-written SQL.
    @discardableResult
    func withRawConnection<Result: Sendable>(
        _ index: Int = 0,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await Self.withRawConnection(devices[index].address, body)
    }

    /// Ends every backend of `role` (as a server restart would), as the admin; how many it ended.
    @discardableResult
    func terminateSessions(of role: String) async throws -> Int {
        try await withAdminConnection { connection in
            try await connection.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = \(role)",
                logger: Logger(label: "coffer.sync.tests")
            ).collect().count
        }
    }

    /// Runs `body` over a raw postgres-nio connection as the admin.
    @discardableResult
    func withAdminConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws
        -> Result
    {
        try await Self.withRawConnection(adminAddress, body)
    }

    /// Runs `body` over a raw postgres-nio connection for `address`, closing it after.
    @discardableResult
    static func withRawConnection<Result: Sendable>(
        _ address: SyncServerAddress,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: address.host, port: address.port, username: address.username, password: address.password,
                database: address.database, tls: .disable
            ),
            id: 1,
            logger: Logger(label: "coffer.sync.tests")
        )
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Runs `body` with the admin's address in a new, empty database, dropped afterwards: for
    /// tests that change the schema itself.
    static func withScratchDatabase<Result: Sendable>(
        _ body: (SyncServerAddress) async throws -> Result
    ) async throws -> Result {
        let admin = try #require(adminAddress, "COFFER_SYNC_TEST_ADMIN_URL is not a postgres:// URL")
        let name = "coffer_sync_test_" + randomHex(bytes: 6)
        try await withRawConnection(admin) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: .init(label: "t"))
                .collect()
        }
        var scratch = admin
        scratch.database = name
        let result: Result
        do {
            result = try await body(scratch)
        } catch {
            try? await dropDatabase(name, admin: admin)
            throw error
        }
        try await dropDatabase(name, admin: admin)
        return result
    }

    private static func dropDatabase(_ name: String, admin: SyncServerAddress) async throws {
        try await withRawConnection(admin) { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: .init(label: "t")
            ).collect()
        }
    }

    /// Random lowercase hex.
    static func randomHex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
    }
}

/// Enables a server test only when a test server is configured; otherwise Swift Testing
/// reports it skipped with this comment.
let serverAvailable = ConditionTrait.enabled(
    if: SyncTestServer.adminAddress != nil,
    "needs PostgreSQL: run `bash scripts/ci/sync.sh` (starts a throwaway server and sets COFFER_SYNC_TEST_ADMIN_URL)"
)

/// A 32-byte row id for tests.
func testRowID(_ seed: UInt8) -> Data { Data(repeating: seed, count: 32) }

/// A row sealed (for the server's purposes) under epoch 1.
func testRow(_ seed: UInt8, version: Int64, device: UUID, epoch: Int = 1, deleted: Bool = false) -> ServerRow {
    ServerRow(
        rowID: testRowID(seed), version: version, deviceID: device, deleted: deleted, keyEpoch: epoch,
        ciphertext: Data("ciphertext \(seed) v\(version)".utf8)
    )
}

/// Waits for `condition` up to `timeout`, polling; whether it became true.
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
