import Coffer
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import CofferSync

/// How the engine fails against the real server: a device holding a sync key that does not
/// open the space, and a server that stops answering (the proxy holds every packet).
extension EngineEndToEndTests {
    /// Runs `body` with a new space of `others + 1` devices, then drops the space and its roles
    /// whether `body` threw or not.
    func withSpace(others: Int, _ body: ([TestDevice]) async throws -> Void) async throws {
        let devices = try await space(others: others)
        do {
            try await body(devices)
        } catch {
            try? await drop(devices[0])
            throw error
        }
        try await drop(devices[0])
    }

    /// The rows the server holds for `space`, read by the admin (row-level security does not
    /// limit the table's owner).
    func serverRowCount(space: UUID) async throws -> Int {
        let logger = logger
        return try await SyncTestServer.withRawConnection(try admin) { connection in
            let rows = try await connection.query(
                "SELECT count(*)::int8 FROM coffer_sync.rows WHERE space_id = \(space)", logger: logger)
            var count: Int64 = -1
            for try await value in rows.decode(Int64.self) { count = value }
            return Int(count)
        }
    }

    /// A device holding another sync key than the space's (same epoch) stops with
    /// `syncKeyMismatch` on its first round, keeps its write queued, and leaves the server
    /// without a single row from it.
    @Test func aWrongSyncKeyStopsTheEngineBeforeItWritesAnything() async throws {
        try await withSpace(others: 1) { devices in
            let intruder = devices[1]
            var credentials = try #require(try intruder.replica.credentials())
            credentials.syncKey = .random(epoch: credentials.syncKey.epoch)
            try intruder.replica.storeCredentials(credentials)
            try intruder.set("must not reach the server", "k1")
            let intruderEngine = try engine(intruder)
            await intruderEngine.start()
            await #expect(
                throws: SyncError.syncKeyMismatch(space: credentials.spaceID, epoch: credentials.syncKey.epoch)
            ) {
                try await intruderEngine.syncNow()
            }
            let status = await intruderEngine.currentStatus()
            #expect(status.phase == .failed && status.queued == 1)
            await intruderEngine.stop()
            #expect(try await serverRowCount(space: credentials.spaceID) == 0)
        }
    }

    /// With the proxy holding every packet, a round fails as `serverUnreachable` once the call
    /// deadline passes (not hanging), the write stays queued, and `stop()` returns though the
    /// connection's call never finished; after resuming, a new start uploads the write.
    @Test func aServerThatStopsAnsweringTimesOutAndStopStillReturns() async throws {
        try await withSpace(others: 0) { devices in
            let a = devices[0]
            let space = try #require(try a.replica.credentials()).spaceID
            try await withTCPProxy(to: try admin) { proxy in
                try a.route(through: proxy)
                let engineA = try engine(a, poll: .seconds(60), callTimeout: .milliseconds(500))
                await engineA.start()
                try await engineA.syncNow()

                try await proxy.pause()
                try a.set("queued while the server holds every packet", "k1")
                await #expect {
                    try await engineA.syncNow()
                } throws: { error in
                    guard case SyncError.serverUnreachable = error else { return false }
                    return true
                }
                #expect(await engineA.currentStatus().queued == 1)
                let stopping = Task<Void, any Error> { await engineA.stop() }
                // Bounded: a stop waiting on the held call would never return.
                #expect(try await value(of: stopping, within: .seconds(20)) != nil)
                #expect(await engineA.currentStatus().phase == .stopped)

                try await proxy.resume()
                await engineA.start()
                try await engineA.syncNow()
                #expect(await engineA.currentStatus().queued == 0)
                await engineA.stop()
            }
            #expect(try await serverRowCount(space: space) == 1)
        }
    }
}

/// Calls that make no sense on an engine in its state fail with `SyncError.misuse`, before any
/// connection is tried (no server needed: the address is never dialled).
@Suite final class EngineMisuseTests {
    let directory: SyncTestDirectory

    init() throws { directory = try SyncTestDirectory() }

    /// An engine needs stored credentials, and `syncNow()` needs a started engine.
    @Test func syncNowOnAnEngineNeverStartedIsMisuse() async throws {
        let device = try TestDevice(directory: directory.url, name: "idle", key: .random(epoch: 1), space: UUID())
        let logger = Logger(label: "coffer.sync.misuse")
        #expect(throws: SyncError.misuse("this database has not created or joined a sync space")) {
            try SyncEngine(replica: device.replica, logger: logger)
        }
        try device.replica.storeCredentials(
            SyncDeviceCredentials(
                spaceID: UUID(), deviceID: device.deviceID, syncKey: .random(epoch: 1), deviceKey: .generate(),
                host: "127.0.0.1", port: 1, database: "unused", username: "coffer_unused", password: "unused",
                requiresTLS: false))
        let engine = try SyncEngine(replica: device.replica, logger: logger)
        await #expect(throws: SyncError.misuse("the sync engine is not running: call start()")) {
            try await engine.syncNow()
        }
        #expect(await engine.currentStatus().phase == .stopped)
    }
}
