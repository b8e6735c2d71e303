import Foundation
import Synchronization

@testable import CofferSync

/// A space on a ``MemoryServer`` as the engine's transport, with a switch to go offline and
/// wake-ups on every push.
final class MemorySpace: Sendable {
    let server = MemoryServer()
    let spaceID: UUID
    private let state: Mutex<(epoch: Int, keyCheck: Data, offline: Bool, sealedKeys: [String: Data])>
    private let listeners = Mutex<[AsyncStream<Void>.Continuation]>([])

    init(spaceID: UUID, key: SyncKey) {
        self.spaceID = spaceID
        state = Mutex((key.epoch, SpaceCheck.keyCheck(syncKey: key, spaceID: spaceID), false, [:]))
    }

    /// While set, every call waits forever, ignoring cancellation (a network holding packets).
    let hangs = Mutex(false)

    var offline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    /// Rotates to `key`, sealed to each device, re-sealing every row under it (versions kept).
    func rotate(to key: SyncKey, from old: SyncKey, devices: [(UUID, DeviceKey)]) throws {
        let oldSealer = RowSealer(syncKey: old, spaceID: spaceID)
        let newSealer = RowSealer(syncKey: key, spaceID: spaceID)
        let resealed = try server.allRows.map { pulled in
            try newSealer.seal(oldSealer.open(pulled.row), version: pulled.row.version, deviceID: pulled.row.deviceID)
        }
        server.replaceAll(resealed)
        try state.withLock { state in
            state.epoch = key.epoch
            state.keyCheck = SpaceCheck.keyCheck(syncKey: key, spaceID: spaceID)
            for (device, deviceKey) in devices {
                state.sealedKeys["\(device)/\(key.epoch)"] = try SyncKeySealing.seal(
                    key, to: deviceKey.publicKey, spaceID: spaceID, deviceID: device)
            }
        }
        notify()
    }

    func notify() {
        for listener in listeners.withLock({ $0 }) { listener.yield() }
    }

    func transport() -> SyncTransportFactory {
        { _ in
            guard !self.offline else { throw SyncError.serverUnreachable(server: "memory", reason: "offline") }
            return Transport(space: self)
        }
    }

    struct Transport: SyncTransport {
        let space: MemorySpace

        func check() async throws {
            if space.hangs.withLock({ $0 }) {
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            }
            if space.offline { throw SyncError.serverUnreachable(server: "memory", reason: "offline") }
        }

        func space() async throws -> SpaceState {
            try await check()
            let state = space.state.withLock { $0 }
            return SpaceState(
                keyEpoch: state.epoch, keyCheck: state.keyCheck, channel: "memory",
                lastSequence: space.server.lastSequenceNumber)
        }

        func push(_ uploads: [PreparedUpload]) async throws -> [UploadOutcome] {
            try await check()
            let epoch = space.state.withLock { $0.epoch }
            guard uploads.allSatisfy({ $0.row.keyEpoch == epoch }) else {
                throw SyncError.server(code: "epoch", message: "stale key epoch")
            }
            let outcomes = space.server.push(UploadBatch(uploads: uploads, settled: []))
            space.notify()
            return outcomes
        }

        func pull(after cursor: Int64, limit: Int) async throws -> [PulledRow] {
            try await check()
            return space.server.pull(after: cursor, limit: limit)
        }

        func sealedKey(epoch: Int, device: UUID) async throws -> Data? {
            try await check()
            return space.state.withLock { $0.sealedKeys["\(device)/\(epoch)"] }
        }

        func wakeUps(channel: String) async throws -> AsyncStream<Void> {
            let (stream, continuation) = AsyncStream<Void>.makeStream()
            space.listeners.withLock { $0.append(continuation) }
            return stream
        }

        func close() async {}
    }
}
