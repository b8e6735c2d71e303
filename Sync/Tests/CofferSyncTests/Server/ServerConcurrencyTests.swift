import CofferSync
import Foundation
import Testing

/// Several devices pushing at once while another pulls: sequence numbers follow commit order,
/// so a puller that only ever asks for `seq > cursor` still sees every row exactly once.
@Suite(serverAvailable) struct ServerConcurrencyTests {
    @Test func concurrentPushersNeverMakeAPullerSkipARow() async throws {
        let writers = 3
        let pushesPerWriter = 25
        try await SyncTestServer.withSpace(devices: writers + 1) { server in
            let reader = try await server.connect(writers)
            let pulled = try await withThrowingTaskGroup(of: [ServerRow].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        let connection = try await server.connect(writer)
                        for push in 0..<pushesPerWriter {
                            let seed = UInt8(writer * pushesPerWriter + push)
                            let outcomes = try await connection.push([
                                PushRequest(
                                    row: testRow(seed, version: 1, device: server.devices[writer].id), baseVersion: 0
                                )
                            ])
                            guard case .accepted = outcomes.first else {
                                throw SyncError.misuse("push \(seed) was not accepted: \(outcomes)")
                            }
                        }
                        await connection.close()
                        return []
                    }
                }
                // The puller runs while the writers do, with small batches to interleave more.
                group.addTask {
                    var cursor: Int64 = 0
                    var seen: [ServerRow] = []
                    let deadline = ContinuousClock.now + .seconds(60)
                    while seen.count < writers * pushesPerWriter, ContinuousClock.now < deadline {
                        let batch = try await reader.pull(after: cursor, limit: 7)
                        seen += batch
                        cursor = batch.last?.sequence ?? cursor
                    }
                    return seen
                }
                var all: [ServerRow] = []
                for try await rows in group { all += rows }
                return all
            }
            #expect(pulled.count == writers * pushesPerWriter)
            #expect(Set(pulled.map(\.rowID)).count == writers * pushesPerWriter)
            #expect(pulled.map(\.sequence) == Array(1...Int64(writers * pushesPerWriter)))
            await reader.close()
        }
    }

    @Test func oneConnectionServesConcurrentCallersOneAtATime() async throws {
        try await SyncTestServer.withSpace { server in
            let connection = try await server.connect()
            let device = server.devices[0].id
            let outcomes = try await withThrowingTaskGroup(of: PushOutcome?.self) { group in
                for seed in 0..<40 {
                    group.addTask {
                        if seed % 2 == 0 {
                            _ = try await connection.pull(after: 0, limit: 100)
                            return nil
                        }
                        let row = testRow(UInt8(seed), version: 1, device: device)
                        return try await connection.push([PushRequest(row: row, baseVersion: 0)]).first
                    }
                }
                var outcomes: [PushOutcome] = []
                for try await outcome in group { outcome.map { outcomes.append($0) } }
                return outcomes
            }
            #expect(outcomes.count == 20)
            #expect(Set(outcomes).count == 20)
            #expect(try await connection.space().lastSequence == 20)
            await connection.close()
        }
    }
}
