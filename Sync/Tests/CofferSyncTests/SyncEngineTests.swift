import Coffer
import Foundation
import Logging
import Testing

@testable import CofferSync

/// The engine's loop against a server in memory: upload and pull, wake-ups, offline queueing,
/// key checks and key rotation.
@Suite final class SyncEngineTests {
    let directory: SyncTestDirectory
    let key = SyncKey.random(epoch: 1)
    let spaceID = UUID()
    let space: MemorySpace

    init() throws {
        directory = try SyncTestDirectory()
        space = MemorySpace(spaceID: spaceID, key: key)
    }

    struct Peer {
        let device: TestDevice
        let engine: SyncEngine
        let deviceKey: DeviceKey
    }

    func peer(_ name: String, key: SyncKey? = nil) throws -> Peer {
        let device = try TestDevice(directory: directory.url, name: name, key: key ?? self.key, space: spaceID)
        let deviceKey = DeviceKey.generate()
        let credentials = SyncDeviceCredentials(
            spaceID: spaceID, deviceID: device.deviceID, syncKey: key ?? self.key, deviceKey: deviceKey,
            host: "memory", port: 0, database: "memory", username: name, password: "unused", requiresTLS: false)
        try device.replica.storeCredentials(credentials)
        let engine = SyncEngine(
            replica: device.replica, credentials: credentials, logger: Logger(label: "test.\(name)"),
            pollInterval: .seconds(60), callTimeout: .milliseconds(300), transport: space.transport())
        return Peer(device: device, engine: engine, deviceKey: deviceKey)
    }

    /// Waits up to five seconds for `condition`.
    func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        for _ in 0..<250 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func rowsFlowBetweenTwoEngines() async throws {
        let a = try peer("a")
        let b = try peer("b")
        await a.engine.start()
        await b.engine.start()
        try a.device.set("hello", "k1")
        try await a.engine.syncNow()
        try await b.engine.syncNow()
        #expect(try b.device.note("k1") == Note(text: "hello"))
        let status = await b.engine.currentStatus()
        #expect(status.phase == .idle && status.cursor == 1 && status.lastError == nil && status.progress == 1)
        #expect(status.lastPull != nil)
        // Without syncNow: the local commit wakes A, the push wakes B.
        try a.device.set("second", "k2")
        #expect(try await eventually { try b.device.note("k2") == Note(text: "second") })
        await a.engine.stop()
        await b.engine.stop()
        #expect(await a.engine.currentStatus().phase == .stopped)
    }

    @Test func offlineWritesQueueAndFlushOnReconnect() async throws {
        let a = try peer("a")
        let b = try peer("b")
        space.offline = true
        await a.engine.start()
        try a.device.set("written offline", "k1")
        await #expect(throws: SyncError.self) { try await a.engine.syncNow() }
        let offline = await a.engine.currentStatus()
        #expect(offline.queued == 1)
        #expect(offline.phase == .offline)
        space.offline = false
        try await a.engine.syncNow()
        #expect(await a.engine.currentStatus().queued == 0)
        await b.engine.start()
        try await b.engine.syncNow()
        #expect(try b.device.note("k1") == Note(text: "written offline"))
        await a.engine.stop()
        await b.engine.stop()
    }

    @Test func wrongKeyStopsBeforeWritingAnything() async throws {
        let intruder = try peer("x", key: .random(epoch: 1))
        try intruder.device.set("must not reach the server", "k1")
        await intruder.engine.start()
        await #expect(throws: SyncError.syncKeyMismatch(space: spaceID, epoch: 1)) {
            try await intruder.engine.syncNow()
        }
        #expect(space.server.allRows.isEmpty)
        #expect(await intruder.engine.currentStatus().phase == .failed)
        await intruder.engine.stop()
    }

    @Test func rotationIsFollowedAndLeavesTheRevokedDeviceOut() async throws {
        let a = try peer("a")
        let b = try peer("b")
        let c = try peer("c")
        for peer in [a, b, c] { await peer.engine.start() }
        try a.device.set("before rotation", "k1")
        try await a.engine.syncNow()
        try await b.engine.syncNow()
        try await c.engine.syncNow()
        #expect(try c.device.note("k1") == Note(text: "before rotation"))

        let next = SyncKey.random(epoch: 2)
        try space.rotate(
            to: next, from: key, devices: [(a.device.deviceID, a.deviceKey), (b.device.deviceID, b.deviceKey)])
        try a.device.set("after rotation", "k2")
        try await a.engine.syncNow()
        try await b.engine.syncNow()
        #expect(try b.device.note("k2") == Note(text: "after rotation"))
        #expect(try b.device.note("k1") == Note(text: "before rotation"))
        #expect(try b.device.replica.credentials()?.syncKey.epoch == 2)
        #expect(try b.device.replica.queuedCount() == 0)

        await #expect(throws: SyncError.syncKeyMismatch(space: spaceID, epoch: 2)) { try await c.engine.syncNow() }
        #expect(try c.device.note("k2") == nil)
        for peer in [a, b, c] { await peer.engine.stop() }
    }

    /// Four engines writing overlapping rows at random while the server goes offline and back:
    /// after quiescence every device holds the model's rows (the latest write per key).
    @Test(arguments: [11, 12, 13])
    func randomWritesWithOutagesConverge(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let peers = try (0..<4).map { try peer("r\($0)") }
        for peer in peers { await peer.engine.start() }
        let keys = ["a", "b", "c", "d", "e"]
        var model: [String: (timestamp: HybridTimestamp, text: String?)] = [:]
        for step in 0..<150 {
            let peer = peers[Int.random(in: 0..<peers.count, using: &random)]
            switch Int.random(in: 0..<20, using: &random) {
            case 0: space.offline.toggle()
            case 1..<4: try? await peer.engine.syncNow()
            default:
                let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                let text: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "s\(seed)-\(step)"
                try peer.device.set(text, key)
                if let state = try peer.device.replica.rowState(collection: "notes", key: key),
                    model[key].map({ $0.timestamp < state.timestamp }) ?? true
                {
                    model[key] = (state.timestamp, text)
                }
            }
        }
        space.offline = false
        for _ in 0..<2 {
            for peer in peers { try await peer.engine.syncNow() }
        }
        let expected = model.compactMapValues(\.text)
        for peer in peers {
            #expect(try peer.device.notes() == expected)
            #expect(await peer.engine.currentStatus().queued == 0)
            await peer.engine.stop()
        }
    }

    @Test func aServerThatStopsAnsweringTimesOutAndStopReturns() async throws {
        let a = try peer("a")
        await a.engine.start()
        try await a.engine.syncNow()
        space.hangs.withLock { $0 = true }
        try a.device.set("queued while the server hangs", "k1")
        await #expect(throws: SyncError.serverUnreachable(server: "memory:0", reason: "no answer in 0.3 seconds")) {
            try await a.engine.syncNow()
        }
        #expect(await a.engine.currentStatus().queued == 1)
        await a.engine.stop()
        space.hangs.withLock { $0 = false }
        await a.engine.start()
        try await a.engine.syncNow()
        #expect(await a.engine.currentStatus().queued == 0)
        await a.engine.stop()
    }

    @Test func syncNowNeedsAStartedEngine() async throws {
        let a = try peer("a")
        await #expect(throws: SyncError.self) { try await a.engine.syncNow() }
    }
}
