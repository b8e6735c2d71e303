import CofferSync
import Foundation
import Testing

/// Push and pull through a real server: sequence order, optimistic concurrency, epochs.
@Suite(serverAvailable) struct ServerPushPullTests {
    @Test func pushedRowsComeBackInSequenceOrder() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let writer = try await server.connect(0)
            let reader = try await server.connect(1)
            let device = server.devices[0].id
            let first = try await writer.push([
                PushRequest(row: testRow(1, version: 1, device: device), baseVersion: 0),
                PushRequest(row: testRow(2, version: 1, device: device, deleted: true), baseVersion: 0),
            ])
            #expect(first == [.accepted(sequence: 1), .accepted(sequence: 2)])
            let second = try await writer.push([
                PushRequest(row: testRow(1, version: 2, device: device), baseVersion: 1)
            ])
            #expect(second == [.accepted(sequence: 3)])

            let all = try await reader.pull(after: 0, limit: 100)
            #expect(all.map(\.rowID) == [testRowID(2), testRowID(1)])
            #expect(all.map(\.sequence) == [2, 3])
            #expect(
                all[0]
                    == ServerRow(
                        rowID: testRowID(2), version: 1, deviceID: device, deleted: true, keyEpoch: 1,
                        ciphertext: testRow(2, version: 1, device: device).ciphertext, sequence: 2
                    ))
            #expect(all[1].version == 2 && all[1].ciphertext == testRow(1, version: 2, device: device).ciphertext)
            #expect(try await reader.pull(after: 2, limit: 100).map(\.sequence) == [3])
            #expect(try await reader.pull(after: 3, limit: 100).isEmpty)
            #expect(try await reader.pull(after: 0, limit: 1).map(\.sequence) == [2])
            #expect(try await reader.space().lastSequence == 3)
            await writer.close()
            await reader.close()
        }
    }

    /// A pull stops adding rows once it holds ``SyncServerConnection/pullByteBudget`` bytes of
    /// ciphertext (at least one row), so large rows come over several answers, none skipped.
    @Test func aPullOfLargeRowsIsCutByBytes() async throws {
        try await SyncTestServer.withSpace(devices: 1) { server in
            let device = try await server.connect(0)
            let id = server.devices[0].id
            let size = SyncServerConnection.pullByteBudget * 3 / 8
            let rows = (UInt8(1)...5).map { seed in
                ServerRow(
                    rowID: testRowID(seed), version: 1, deviceID: id, deleted: false, keyEpoch: 1,
                    ciphertext: Data(repeating: seed, count: size))
            }
            _ = try await device.push(rows.map { PushRequest(row: $0, baseVersion: 0) })
            var pages: [[Int64]] = []
            var cursor: Int64 = 0
            while true {
                let page = try await device.pull(after: cursor, limit: 100)
                guard let last = page.last else { break }
                pages.append(page.map(\.sequence))
                cursor = last.sequence
                #expect(page.allSatisfy { $0.ciphertext.count == size })
            }
            #expect(pages == [[1, 2, 3], [4, 5]], "three rows pass the budget only with the third")
            await device.close()
        }
    }

    @Test func staleBaseVersionConflictsWithTheStoredRow() async throws {
        try await SyncTestServer.withSpace(devices: 2) { server in
            let one = try await server.connect(0)
            let two = try await server.connect(1)
            let a = server.devices[0].id
            let b = server.devices[1].id
            _ = try await one.push([PushRequest(row: testRow(7, version: 1, device: a), baseVersion: 0)])
            let stored = try #require(try await one.pull(after: 0, limit: 10).first)

            // Device two also believes the row is new, and pushes another row alongside.
            let outcomes = try await two.push([
                PushRequest(row: testRow(7, version: 1, device: b), baseVersion: 0),
                PushRequest(row: testRow(8, version: 1, device: b), baseVersion: 0),
            ])
            #expect(outcomes == [.conflict(current: stored), .accepted(sequence: 2)])
            // A base ahead of the server conflicts too; nothing of it is written.
            let ahead = try await two.push([PushRequest(row: testRow(7, version: 6, device: b), baseVersion: 5)])
            #expect(ahead == [.conflict(current: stored)])
            #expect(try await two.pull(after: 0, limit: 10).map(\.rowID) == [testRowID(7), testRowID(8)])
            await one.close()
            await two.close()
        }
    }

    @Test func batchBuildsOnItsOwnEarlierRequests() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            let device = server.devices[0].id
            let outcomes = try await connection.push([
                PushRequest(row: testRow(3, version: 1, device: device), baseVersion: 0),
                PushRequest(row: testRow(3, version: 2, device: device), baseVersion: 1),
                PushRequest(row: testRow(3, version: 2, device: device), baseVersion: 1),
            ])
            var expectedCurrent = testRow(3, version: 2, device: device)
            expectedCurrent.sequence = 2
            #expect(outcomes == [.accepted(sequence: 1), .accepted(sequence: 2), .conflict(current: expectedCurrent)])
            #expect(try await connection.pull(after: 0, limit: 10) == [expectedCurrent])
            await connection.close()
        }
    }

    @Test func rowsOfAnotherEpochAreRefusedWhole() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            let device = server.devices[0].id
            await #expect(throws: SyncError.keyEpochChanged(space: server.spaceID, expected: 2, current: 1)) {
                try await connection.push([
                    PushRequest(row: testRow(1, version: 1, device: device), baseVersion: 0),
                    PushRequest(row: testRow(2, version: 1, device: device, epoch: 2), baseVersion: 0),
                ])
            }
            #expect(try await connection.pull(after: 0, limit: 10).isEmpty)
            #expect(try await connection.space().lastSequence == 0)
            await connection.close()
        }
    }

    @Test func malformedRequestsAreRefusedBeforeSending() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            let device = server.devices[0].id
            var shortID = testRow(1, version: 1, device: device)
            shortID.rowID = Data(count: 31)
            await #expect(throws: SyncError.self) {
                try await connection.push([PushRequest(row: shortID, baseVersion: 0)])
            }
            await #expect(throws: SyncError.self) {
                try await connection.push([PushRequest(row: testRow(1, version: 3, device: device), baseVersion: 1)])
            }
            await #expect(throws: SyncError.self) { try await connection.pull(after: 0, limit: 0) }
            #expect(try await connection.push([]) == [])
            await connection.close()
        }
    }

    @Test func spaceReportsWhatTheAdminCreated() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            let space = try await connection.space()
            #expect(
                space
                    == SpaceInfo(
                        spaceID: server.spaceID, keyEpoch: 1, keyCheck: server.keyCheck, channel: server.channel,
                        lastSequence: 0
                    ))
            let devices = try await connection.devices()
            #expect(
                devices == [
                    DeviceRecord(
                        deviceID: server.devices[0].id, roleName: server.devices[0].roleName,
                        publicKey: server.devices[0].publicKey, revoked: false
                    )
                ])
            await connection.close()
        }
    }
}
