import CofferSync
import Foundation
import Testing

/// Key rotation: rows, keys, epoch, check and channel replaced together, or not at all.
@Suite(serverAvailable) struct ServerRotationTests {
    @Test func rotationReplacesRowsAndBumpsTheEpoch() async throws {
        try await SyncTestServer.withSpace(devices: 3) { server in
            let rotator = try await server.connect(0)
            let (d0, d1, d2) = (server.devices[0].id, server.devices[1].id, server.devices[2].id)
            _ = try await rotator.push(
                (1...3).map { PushRequest(row: testRow($0, version: 1, device: d0), baseVersion: 0) })

            // A device still listening on the old channel hears the rotation.
            let wakeUps = WakeUpCounter()
            let listening = wakeUps.consume(
                SyncServerListener(address: server.devices[1].address, channel: server.channel).wakeUps()
            )
            defer { listening.cancel() }
            #expect(await eventually { await wakeUps.count >= 1 })

            let newRows = [
                testRow(11, version: 1, device: d0, epoch: 2), testRow(12, version: 4, device: d0, epoch: 2),
            ]
            let newCheck = Data("check 2".utf8)
            let newChannel = "coffer_" + SyncTestServer.randomHex(bytes: 16)
            let last = try await rotator.rotate(
                newEpoch: 2, pulledThrough: 3, keyCheck: newCheck, channel: newChannel,
                sealedKeys: [d0: Data([0]), d1: Data([1])], rows: newRows, revoking: d2
            )
            #expect(last == 5)
            #expect(await eventually { await wakeUps.count >= 2 })
            #expect(
                try await rotator.space()
                    == SpaceInfo(
                        spaceID: server.spaceID, keyEpoch: 2, keyCheck: newCheck, channel: newChannel, lastSequence: 5
                    ))
            let other = try await server.connect(1)
            let pulled = try await other.pull(after: 0, limit: 10)
            #expect(pulled.map(\.rowID) == newRows.map(\.rowID))
            #expect(pulled.map(\.sequence) == [4, 5])
            #expect(pulled.map(\.version) == [1, 4])
            #expect(try await other.sealedKey(epoch: 2, device: d1) == Data([1]))
            #expect(try await other.sealedKey(epoch: 2, device: d2) == nil)
            await #expect(throws: SyncError.deviceRevoked(server: server.devices[2].address.server)) {
                try await server.connect(2)
            }
            // A device still on epoch 1 can push nothing until it takes the new key.
            await #expect(throws: SyncError.keyEpochChanged(space: server.spaceID, expected: 1, current: 2)) {
                try await other.push([PushRequest(row: testRow(1, version: 2, device: d1), baseVersion: 1)])
            }
            // A second rotation to the same epoch (another device's, say) is refused whole.
            await #expect(throws: SyncError.keyEpochChanged(space: server.spaceID, expected: 1, current: 2)) {
                try await other.rotate(
                    newEpoch: 2, pulledThrough: 5, keyCheck: Data("other".utf8), channel: server.channel,
                    sealedKeys: [d1: Data([9])],
                    rows: [], revoking: d0
                )
            }
            #expect(try await other.pull(after: 0, limit: 10) == pulled)
            #expect(try await other.space().keyCheck == newCheck)
            #expect(try await other.devices().filter(\.revoked).map(\.deviceID) == [d2])
            await rotator.close()
            await other.close()
        }
    }

    @Test func failedRotationChangesNothing() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let rotator = try await server.connect(0)
            let (d0, d1) = (server.devices[0].id, server.devices[1].id)
            _ = try await rotator.push([PushRequest(row: testRow(1, version: 1, device: d0), baseVersion: 0)])
            let rowsBefore = try await rotator.pull(after: 0, limit: 10)
            let spaceBefore = try await rotator.space()
            // A key sealed to a device the space does not have fails the insert, after the rows
            // were already deleted inside the transaction.
            await #expect(throws: SyncError.self) {
                try await rotator.rotate(
                    newEpoch: 2, pulledThrough: spaceBefore.lastSequence, keyCheck: Data("check 2".utf8),
                    channel: server.channel, sealedKeys: [d0: Data([0]), UUID(): Data([1])],
                    rows: [testRow(2, version: 1, device: d0, epoch: 2)],
                    revoking: d1
                )
            }
            #expect(try await rotator.pull(after: 0, limit: 10) == rowsBefore)
            #expect(try await rotator.space() == spaceBefore)
            #expect(try await rotator.devices().allSatisfy { !$0.revoked })
            await rotator.close()
        }
    }

    @Test func rotationRefusesWhenTheSpaceMovedSinceItWasRead() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let rotator = try await server.connect(0)
            let pusher = try await server.connect(1)
            let (d0, d1) = (server.devices[0].id, server.devices[1].id)
            _ = try await rotator.push([PushRequest(row: testRow(1, version: 1, device: d0), baseVersion: 0)])
            let read = try await rotator.space().lastSequence
            // Another device pushes after the rotating device read the space.
            _ = try await pusher.push([PushRequest(row: testRow(2, version: 1, device: d1), baseVersion: 0)])
            let rowsBefore = try await rotator.pull(after: 0, limit: 10)
            let spaceBefore = try await rotator.space()
            await #expect(throws: SyncError.spaceChanged(space: server.spaceID, pulledThrough: read, current: read + 1))
            {
                try await rotator.rotate(
                    newEpoch: 2, pulledThrough: read, keyCheck: Data("check 2".utf8), channel: server.channel,
                    sealedKeys: [d0: Data([0]), d1: Data([1])], rows: [testRow(1, version: 1, device: d0, epoch: 2)],
                    revoking: nil
                )
            }
            #expect(try await rotator.pull(after: 0, limit: 10) == rowsBefore)
            #expect(try await rotator.space() == spaceBefore)
            // Read through the other device's push, the rotation goes ahead.
            try await rotator.rotate(
                newEpoch: 2, pulledThrough: read + 1, keyCheck: Data("check 2".utf8), channel: server.channel,
                sealedKeys: [d0: Data([0]), d1: Data([1])],
                rows: [testRow(1, version: 1, device: d0, epoch: 2), testRow(2, version: 1, device: d1, epoch: 2)],
                revoking: nil
            )
            #expect(try await pusher.pull(after: 0, limit: 10).map(\.rowID) == [testRowID(1), testRowID(2)])
            await rotator.close()
            await pusher.close()
        }
    }

    @Test func malformedRotationsAreRefusedBeforeSending() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let rotator = try await server.connect(0)
            let (d0, d1) = (server.devices[0].id, server.devices[1].id)
            let cases: [(Int, [UUID: Data], [ServerRow], UUID?)] = [
                (1, [:], [], nil),
                (2, [d1: Data([1])], [], d1),
                (2, [:], [testRow(1, version: 1, device: d0, epoch: 1)], nil),
                (
                    2, [:],
                    [testRow(1, version: 1, device: d0, epoch: 2), testRow(1, version: 2, device: d0, epoch: 2)], nil
                ),
            ]
            for (epoch, keys, rows, revoking) in cases {
                await #expect(throws: SyncError.self) {
                    try await rotator.rotate(
                        newEpoch: epoch, pulledThrough: 0, keyCheck: Data(), channel: server.channel, sealedKeys: keys,
                        rows: rows,
                        revoking: revoking
                    )
                }
            }
            #expect(try await rotator.space().keyEpoch == 1)
            await rotator.close()
        }
    }
}
