import Coffer
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import CofferSync
@testable import coffer_sync

/// Two and three devices (separate databases in this process) syncing through a real
/// PostgreSQL with the setup flows and engines: propagation, convergence, deletes, offline
/// queueing, tampering by hand-written SQL, revocation, and no clear data on the server.
///
/// Skipped without a server: run `bash scripts/ci/sync.sh` (it starts a throwaway PostgreSQL and
/// sets COFFER_SYNC_TEST_ADMIN_URL).
@Suite(serverAvailable, .serialized) final class EngineEndToEndTests {
    let directory: SyncTestDirectory
    let logger = Logger(label: "coffer.sync.e2e")
    static let cheap = KeyFile.KDFParameters.scrypt(n: 1 << 10, r: 8, p: 1)

    init() throws { directory = try SyncTestDirectory() }

    struct Peer {
        let device: TestDevice
        let engine: SyncEngine
        var credentials: SyncDeviceCredentials
    }

    var admin: SyncServerAddress {
        get throws { try #require(SyncTestServer.adminAddress) }
    }

    /// An engine for `device` over PostgreSQL; while `offline` is set it cannot connect, and
    /// every call on an open connection fails.
    func engine(
        _ device: TestDevice, offline: OfflineSwitch? = nil, poll: Duration = .seconds(5),
        callTimeout: Duration = .seconds(3)
    ) throws -> SyncEngine {
        let credentials = try #require(try device.replica.credentials())
        let real = PostgresTransport.factory(logger: logger)
        let factory: SyncTransportFactory = { [offline] credentials in
            if offline?.isOn == true {
                throw SyncError.serverUnreachable(server: "test", reason: "offline")
            }
            let transport = try await real(credentials)
            guard let offline else { return transport }
            return SeveringTransport(base: transport, offline: offline)
        }
        return SyncEngine(
            replica: device.replica, credentials: credentials, logger: logger, pollInterval: poll,
            callTimeout: callTimeout, transport: factory)
    }

    /// A new space with its first device, and `others` devices enrolled and joined through
    /// enrollment files.
    func space(others: Int, name: String = "first") async throws -> [TestDevice] {
        try await SyncTestServer.schemaReady()
        let first = try TestDevice(directory: directory.url, name: name, key: .random(epoch: 1), space: UUID())
        let credentials = try await SyncSetup.createSpace(replica: first.replica, admin: try admin, logger: logger)
        var devices = [try TestDevice(rebinding: first, to: credentials)]
        for index in 0..<others {
            let file = try await SyncSetup.enrollDevice(
                from: first.replica, passphrase: Data("pass \(index)".utf8), parameters: Self.cheap, logger: logger)
            let joining = try TestDevice(
                directory: directory.url, name: "\(name)-joined\(index)", key: .random(epoch: 1), space: UUID())
            let joined = try SyncSetup.join(
                replica: joining.replica, enrollmentFile: file, passphrase: Data("pass \(index)".utf8))
            devices.append(try TestDevice(rebinding: joining, to: joined))
        }
        return devices
    }

    /// A started engine for each of `devices`, in order.
    func started(_ devices: TestDevice...) async throws -> [SyncEngine] {
        let engines = try devices.map { try engine($0) }
        for engine in engines { await engine.start() }
        return engines
    }

    func drop(_ device: TestDevice) async throws {
        guard let space = try device.replica.credentials()?.spaceID else { return }
        try await SyncServerAdmin(address: try admin).dropSpace(spaceID: space)
    }

    func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        for _ in 0..<250 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func rowsPropagateConvergeAndDelete() async throws {
        let devices = try await space(others: 1)
        let (a, b) = (devices[0], devices[1])
        let engines = try await started(a, b)
        let (engineA, engineB) = (engines[0], engines[1])

        try a.set("hello", "k1", tag: "red")
        try await engineA.syncNow()
        try await engineB.syncNow()
        #expect(try b.note("k1") == Note(text: "hello"))
        let first = await engineB.currentStatus()
        #expect(first.cursor >= 1 && first.progress == 1 && first.lastPull != nil)
        // A notification may have started another round already.
        #expect([SyncStatus.Phase.idle, .syncing].contains(first.phase))
        // Without syncNow: the commit wakes A, NOTIFY wakes B.
        try a.set("notified", "k2")
        #expect(try await eventually { try b.note("k2") == Note(text: "notified") })

        await engineA.stop()
        await engineB.stop()
        try a.set("from a", "k1")
        try await Task.sleep(for: .milliseconds(5))
        try b.set("from b, later", "k1")
        await engineA.start()
        await engineB.start()
        try await engineA.syncNow()
        try await engineB.syncNow()
        try await engineA.syncNow()
        #expect(try a.note("k1") == Note(text: "from b, later"))
        #expect(try b.note("k1") == Note(text: "from b, later"))

        try b.set(nil, "k1")
        try await engineB.syncNow()
        try await engineA.syncNow()
        #expect(try a.note("k1") == nil)
        #expect(try a.notes() == b.notes())
        let status = await engineA.currentStatus()
        #expect(status.queued == 0 && status.lastError == nil && status.rejectedRows == 0)
        await engineA.stop()
        await engineB.stop()
        try await drop(a)
    }

    /// Three devices writing overlapping rows at random, each cut off from the server at random
    /// times: after quiescence every device holds the model's rows (the latest write per key).
    @Test func randomWritesWithOutagesConverge() async throws {
        var random = SplitMix64(state: 26)
        let devices = try await space(others: 2)
        let switches = devices.map { _ in OfflineSwitch(false) }
        let engines = try zip(devices, switches).map { try engine($0, offline: $1) }
        for engine in engines { await engine.start() }
        let keys = ["a", "b", "c", "d", "e", "f"]
        var model = LatestWrites()
        for step in 0..<200 {
            let index = Int.random(in: 0..<devices.count, using: &random)
            switch Int.random(in: 0..<20, using: &random) {
            case 0: switches[index].isOn.toggle()
            case 1..<4: try? await engines[index].syncNow()
            default:
                let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                let text: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "step \(step)"
                try model.write(text, key, on: devices[index])
            }
        }
        for offline in switches { offline.isOn = false }
        for _ in 0..<2 {
            for engine in engines { try await engine.syncNow() }
        }
        let expected = model.rows
        for (device, engine) in zip(devices, engines) {
            #expect(try device.notes() == expected)
            #expect(await engine.currentStatus().queued == 0)
            await engine.stop()
        }
        try await drop(devices[0])
    }

    /// Whether `STRESS=1` asked for the long runs (four times the random steps).
    static let isStress = ProcessInfo.processInfo.environment["STRESS"].map { !$0.isEmpty && $0 != "0" } ?? false

    /// `deviceCount` devices (two, three, eight) syncing through a loopback TCP proxy that is
    /// paused and severed at random while they write overlapping rows: after quiescence every
    /// device holds the model's rows (the latest write per key, tombstones included).
    @Test(arguments: [2, 3, 8])
    func randomWritesThroughAPausedAndSeveredProxyConverge(deviceCount: Int) async throws {
        var random = SplitMix64(state: 2026 + UInt64(deviceCount))
        let devices = try await space(others: deviceCount - 1)
        try await withTCPProxy(to: try admin) { proxy in
            for device in devices { try device.route(through: proxy) }
            let engines = try devices.map { try engine($0, poll: .milliseconds(300)) }
            for engine in engines { await engine.start() }
            let keys = ["a", "b", "c", "d", "e", "f"]
            var model = LatestWrites()
            for step in 0..<(50 * deviceCount * (Self.isStress ? 4 : 1)) {
                if try await proxy.randomFault(using: &random) { continue }
                let index = Int.random(in: 0..<devices.count, using: &random)
                let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                let text: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "step \(step)"
                try model.write(text, key, on: devices[index])
                if Int.random(in: 0..<5, using: &random) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            try await proxy.resume()
            let expected = model.rows
            // Quiescence: rounds until every device holds the model (a severed round may fail once).
            let converged = await CofferSyncTests.eventually(timeout: .seconds(30)) {
                devices.allSatisfy { (try? $0.notes()) == expected }
                    && devices.allSatisfy { (try? $0.replica.queuedCount()) == 0 }
            }
            #expect(converged)
            for (device, engine) in zip(devices, engines) {
                #expect(try device.notes() == expected)
                await engine.stop()
            }
        }
        try await drop(devices[0])
    }

    @Test func offlineWritesFlushOnReconnect() async throws {
        let devices = try await space(others: 1)
        let (a, b) = (devices[0], devices[1])
        let offline = OfflineSwitch(true)
        let engineA = try engine(a, offline: offline)
        await engineA.start()
        for index in 0..<20 { try a.set("offline \(index)", "k\(index)") }
        await #expect(throws: SyncError.self) { try await engineA.syncNow() }
        #expect(await engineA.currentStatus().queued == 20)
        offline.isOn = false
        try await engineA.syncNow()
        #expect(await engineA.currentStatus().queued == 0)
        let engineB = try engine(b)
        await engineB.start()
        try await engineB.syncNow()
        #expect(try b.notes().count == 20)
        await engineA.stop()
        await engineB.stop()
        try await drop(a)
    }

    @Test func tamperingOnTheServerIsRejectedAndReported() async throws {
        let devices = try await space(others: 1)
        let (a, b) = (devices[0], devices[1])
        let other = try await space(others: 0, name: "other")[0]
        let engineA = try engine(a)
        let engineOther = try engine(other)
        await engineA.start()
        await engineOther.start()
        for key in ["flip", "swap1", "swap2", "relabel", "good"] { try a.set("value of \(key)", key) }
        try await engineA.syncNow()
        try other.set("from another space", "moved")
        try await engineOther.syncNow()
        await engineA.stop()
        await engineOther.stop()

        let space = try #require(try a.replica.credentials()?.spaceID)
        let otherSpace = try #require(try other.replica.credentials()?.spaceID)
        let sealer = try #require(try a.replica.credentials()).syncKey
        func id(_ key: String) -> Data { RowID(collection: "notes", key: key, syncKey: sealer).bytes }
        let logger = logger
        try await SyncTestServer.withRawConnection(try admin) { connection in
            try await connection.query(
                """
                UPDATE coffer_sync.rows SET ciphertext = overlay(ciphertext placing '\\xff'::bytea from 20 for 1)
                WHERE space_id = \(space) AND row_id = \(id("flip"))
                """, logger: logger)
            try await connection.query(
                """
                UPDATE coffer_sync.rows r SET ciphertext = o.ciphertext FROM coffer_sync.rows o
                WHERE r.space_id = \(space) AND o.space_id = \(space)
                AND ((r.row_id = \(id("swap1")) AND o.row_id = \(id("swap2")))
                  OR (r.row_id = \(id("swap2")) AND o.row_id = \(id("swap1"))))
                """, logger: logger)
            try await connection.query(
                "UPDATE coffer_sync.rows SET version = version + 1 WHERE space_id = \(space) AND row_id = \(id("relabel"))",
                logger: logger)
            try await connection.query(
                "UPDATE coffer_sync.rows SET space_id = \(space), seq = seq + 1000 WHERE space_id = \(otherSpace)",
                logger: logger)
        }

        let engineB = try engine(b)
        await engineB.start()
        try await engineB.syncNow()
        let status = await engineB.currentStatus()
        #expect(status.rejectedRows == 5)
        guard case .tampered = status.lastRejection else {
            Issue.record("expected a tampered row, got \(String(describing: status.lastRejection))")
            return
        }
        #expect(try b.notes() == ["good": "value of good"])
        await engineB.stop()
        try await drop(a)
        try await drop(other)
    }

    @Test func revokedDeviceCannotReadNewRows() async throws {
        let devices = try await space(others: 2)
        let (a, b, c) = (devices[0], devices[1], devices[2])
        let engines = try [engine(a), engine(b), engine(c)]
        for engine in engines { await engine.start() }
        try a.set("before", "k1")
        try await engines[0].syncNow()
        try await engines[1].syncNow()
        try await engines[2].syncNow()
        #expect(try c.note("k1") == Note(text: "before"))

        let revoked = try #require(try c.replica.credentials())
        try await SyncSetup.revokeDevice(revoked.deviceID, from: a.replica, logger: logger)
        try a.set("after", "k2")
        try await engines[0].syncNow()
        try await engines[1].syncNow()
        #expect(try b.note("k2") == Note(text: "after"))
        #expect(try b.note("k1") == Note(text: "before"))
        #expect(try b.replica.credentials()?.syncKey.epoch == 2)
        #expect(try b.replica.queuedCount() == 0)
        // The rotation changed the channel: B listens on the new one.
        try a.set("notified after rotation", "k3")
        #expect(try await eventually { try b.note("k3") == Note(text: "notified after rotation") })

        await #expect(throws: SyncError.self) { try await engines[2].syncNow() }
        #expect(try c.note("k2") == nil)
        await #expect(throws: SyncError.deviceRevoked(server: revoked.serverAddress.server)) {
            try await SyncServerConnection.connect(to: revoked.serverAddress, space: revoked.spaceID)
        }
        for engine in engines { await engine.stop() }
        try await drop(a)
    }

    /// Another device pushes between the revoking device's reading of the space and its
    /// rotation: the server refuses the rotation (the re-sealed set lacks that row), the
    /// revoking device reads the space again and rotates, and the row survives, readable under
    /// the new key.
    @Test func rotationRetriesWhenAnotherDevicePushedMeanwhile() async throws {
        let devices = try await space(others: 2)
        let (a, b, c) = (devices[0], devices[1], devices[2])
        let engineA = try engine(a)
        let engineB = try engine(b)
        await engineA.start()
        try a.set("before", "k1")
        try await engineA.syncNow()
        // A must not pull B's row before the rotation: only the rotation may bring it to A.
        await engineA.stop()
        await engineB.start()
        try await engineB.syncNow()

        let revoked = try #require(try c.replica.credentials())
        var attempts: [Int] = []
        try await SyncSetup.revokeDevice(revoked.deviceID, from: a.replica, logger: logger) { attempt in
            attempts.append(attempt)
            guard attempt == 1 else { return }
            try b.set("pushed meanwhile", "kb")
            try await engineB.syncNow()
            #expect(try b.replica.queuedCount() == 0)
        }
        #expect(attempts == [1, 2])

        // On the server, under the new key.
        let credentials = try #require(try a.replica.credentials())
        #expect(credentials.syncKey.epoch == 2)
        let connection = try await SyncServerConnection.connect(
            to: credentials.serverAddress, space: credentials.spaceID, logger: logger)
        let stored = try await connection.pull(after: 0, limit: 100)
        await connection.close()
        let rowID = RowID(collection: "notes", key: "kb", syncKey: credentials.syncKey).bytes
        let row = try #require(stored.first { $0.rowID == rowID }, "the row pushed meanwhile is gone")
        let sealer = RowSealer(syncKey: credentials.syncKey, spaceID: credentials.spaceID)
        #expect(throws: Never.self) { try sealer.open(PulledRow(row).row) }
        #expect(stored.count == 2)

        // On both devices, through their engines.
        await engineA.start()
        try await engineA.syncNow()
        try await engineB.syncNow()
        for device in [a, b] {
            #expect(try device.note("kb") == Note(text: "pushed meanwhile"))
            #expect(try device.note("k1") == Note(text: "before"))
        }
        #expect(try b.replica.credentials()?.syncKey.epoch == 2)
        await engineA.stop()
        await engineB.stop()
        try await drop(a)
    }

    @Test func wrongPasswordAndMissingServerAreReported() async throws {
        let devices = try await space(others: 0)
        let a = devices[0]
        var credentials = try #require(try a.replica.credentials())
        credentials.password = "not the password"
        let refused = SyncEngine(
            replica: a.replica, credentials: credentials, logger: logger, pollInterval: .seconds(5),
            transport: PostgresTransport.factory(logger: logger))
        await refused.start()
        await #expect {
            try await refused.syncNow()
        } throws: { error in
            guard case SyncError.authenticationFailed(let server, _) = error else { return false }
            return server == credentials.serverAddress.server
        }
        #expect(await refused.currentStatus().phase == .failed)
        await refused.stop()

        credentials = try #require(try a.replica.credentials())
        credentials.port = 1
        let missing = SyncEngine(
            replica: a.replica, credentials: credentials, logger: logger, pollInterval: .seconds(5),
            transport: PostgresTransport.factory(logger: logger))
        await missing.start()
        await #expect {
            try await missing.syncNow()
        } throws: { error in
            guard case SyncError.serverUnreachable = error else { return false }
            return true
        }
        #expect(await missing.currentStatus().phase == .offline)
        await missing.stop()
        try await drop(a)
    }

    /// The server's data directory, exported by `scripts/ci/sync.sh` (this process, run as
    /// root there, can read it); nil elsewhere.
    static let dataDirectory = ProcessInfo.processInfo.environment["COFFER_SYNC_TEST_DATA_DIRECTORY"]
        .flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }

    /// Writes a canary value (in a row's value, key and metadata) on one device and syncs it to
    /// another; returns it.
    func syncCanary() async throws -> (canary: String, first: TestDevice) {
        let devices = try await space(others: 1)
        let (a, b) = (devices[0], devices[1])
        let canary = "canary-" + UUID().uuidString
        let engineA = try engine(a)
        await engineA.start()
        try a.set(canary, "key-\(canary)", tag: canary)
        try await engineA.syncNow()
        await engineA.stop()
        let engineB = try engine(b)
        await engineB.start()
        try await engineB.syncNow()
        #expect(try b.note("key-\(canary)") == Note(text: canary))
        await engineB.stop()
        return (canary, a)
    }

    @Test func canaryNeverReachesTheServerInClear() async throws {
        let (canary, a) = try await syncCanary()
        let admin = try admin
        let dump = try pgDump(admin)
        #expect(dump.contains("coffer_sync.rows"))
        #expect(!dump.contains(canary))
        #expect(!dump.contains(Data(canary.utf8).map { String(format: "%02x", $0) }.joined()))
        try await drop(a)
    }

    /// The canary is in no file of the server's data directory, the WAL (`pg_wal`) included,
    /// after a CHECKPOINT has written every dirty page; a control value the admin stores in
    /// clear is found by the same scan, so the scan does look where rows go.
    @Test(
        .enabled(
            if: dataDirectory != nil,
            "needs the server's data directory in COFFER_SYNC_TEST_DATA_DIRECTORY (scripts/ci/sync.sh sets it)"))
    func canaryNeverReachesTheServersDataDirectoryOrWAL() async throws {
        let directory = try #require(Self.dataDirectory)
        let (canary, a) = try await syncCanary()
        let control = "control-" + UUID().uuidString
        let table = "coffer_sync_canary_control_" + SyncTestServer.randomHex(bytes: 4)
        let logger = logger
        try await SyncTestServer.withRawConnection(try admin) { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "CREATE TABLE public.\(table) (v text)"), logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO public.\(table) VALUES ('\(control)')"), logger: logger)
            try await connection.query("CHECKPOINT", logger: logger)
        }
        let hits = try Self.filesContaining([Data(canary.utf8), Data(control.utf8)], under: directory)
        try await SyncTestServer.withRawConnection(try admin) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE public.\(table)"), logger: logger)
        }
        #expect(hits[0].isEmpty, "the canary is in \(hits[0])")
        #expect(!hits[1].isEmpty, "the control value was found nowhere: the scan missed the data")
        #expect(hits[1].contains { $0.hasPrefix("pg_wal/") }, "the control value is not in the WAL: \(hits[1])")
        try await drop(a)
    }

    /// For each needle, the paths (relative to `directory`) of the regular files holding it.
    ///
    /// Files that vanish during the walk (recycled WAL, temporary statistics) are skipped.
    static func filesContaining(_ needles: [Data], under directory: URL) throws -> [[String]] {
        var hits = needles.map { _ in [String]() }
        let root = directory.standardizedFileURL.path
        let walk = try #require(FileManager.default.enumerator(atPath: root), "cannot list \(root)")
        var scanned = 0
        while let relative = walk.nextObject() as? String {
            let path = root + "/" + relative
            guard (walk.fileAttributes?[.type] as? FileAttributeType) == .typeRegular,
                let contents = FileManager.default.contents(atPath: path)
            else { continue }
            scanned += 1
            for (index, needle) in needles.enumerated() where contains(contents, needle) {
                hits[index].append(relative)
            }
        }
        #expect(scanned > 0, "no file was scanned under \(root)")
        return hits
    }

    /// Whether `needle` occurs in `haystack` (Foundation's search, built optimized: WAL
    /// segments are 16 MiB each).
    static func contains(_ haystack: Data, _ needle: Data) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return haystack.range(of: needle) != nil
    }

    /// `pg_dump` of the test database as the admin, as text.
    func pgDump(_ admin: SyncServerAddress) throws -> String {
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let binary = try #require(
            candidates.sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
                .first { FileManager.default.isExecutableFile(atPath: $0) }, "pg_dump not found")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "-h", admin.host, "-p", "\(admin.port)", "-U", admin.username, "-d", admin.database, "--no-password",
        ]
        process.environment = ["PGPASSWORD": admin.password]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Whether a test's transport refuses to connect.
final class OfflineSwitch: Sendable {
    private let state: Mutex<Bool>
    init(_ isOn: Bool) { state = Mutex(isOn) }
    var isOn: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// A transport whose every call fails while its switch is on, as if the network were cut.
struct SeveringTransport: SyncTransport {
    let base: any SyncTransport
    let offline: OfflineSwitch

    func check() throws {
        if offline.isOn { throw SyncError.serverUnreachable(server: "test", reason: "severed") }
    }

    func space() async throws -> SpaceState {
        try check()
        return try await base.space()
    }

    func push(_ uploads: [PreparedUpload]) async throws -> [UploadOutcome] {
        try check()
        let outcomes = try await base.push(uploads)
        // Cut after the server committed: the answer is lost, the push is retried.
        try check()
        return outcomes
    }

    func pull(after cursor: Int64, limit: Int) async throws -> [PulledRow] {
        try check()
        return try await base.pull(after: cursor, limit: limit)
    }

    func sealedKey(epoch: Int, device: UUID) async throws -> Data? {
        try check()
        return try await base.sealedKey(epoch: epoch, device: device)
    }

    func wakeUps(channel: String) async throws -> AsyncStream<Void> { try await base.wakeUps(channel: channel) }

    func close() async { await base.close() }
}
