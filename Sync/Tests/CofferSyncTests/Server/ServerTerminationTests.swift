import Foundation
import PostgresNIO
import Testing

@testable import CofferSync

/// A call on a connection whose backend the server ended (a restart, an administrator), before
/// or in the middle of its answer, reconnects or fails at once as unreachable, and the next
/// call reconnects: it never waits for an answer that cannot come.
@Suite(serverAvailable, .serialized) struct ServerTerminationTests {
    @Test(arguments: [false, true])
    func aCallOnAConnectionTheServerEndedFailsAtOnce(midAnswer: Bool) async throws {
        try await SyncTestServer.withSpace(devices: 1) { server in
            let device = try await server.connect(0)
            let id = server.devices[0].id
            for batch in 0..<4 {
                _ = try await device.push(
                    (0..<500).map { index in
                        let seed = batch * 500 + index
                        let row = ServerRow(
                            rowID: Data((0..<32).map { UInt8(truncatingIfNeeded: seed >> ($0 % 4 * 8)) }), version: 1,
                            deviceID: id, deleted: false, keyEpoch: 1, ciphertext: Data(repeating: 7, count: 4_096))
                        return PushRequest(row: row, baseVersion: 0)
                    })
            }
            let role = server.devices[0].roleName
            if !midAnswer {
                try await server.terminateSessions(of: role)
                try await Task.sleep(for: .milliseconds(200))
            }
            let started = ContinuousClock.now
            let pulling = Task {
                try await withDeadline(.seconds(20), server: "test", name: "pulling") {
                    try await device.pull(after: 0, limit: 2_000)
                }
            }
            if midAnswer { try await server.terminateSessions(of: role) }
            do {
                // A connection seen closed before the call is opened again; an answer may also
                // have been complete before the backend ended.
                let rows = try await pulling.value
                #expect(rows.count == 2_000, "a pull without an error returned \(rows.count) rows")
            } catch let error as SyncError {
                guard case .serverUnreachable(_, let reason) = error, !reason.hasPrefix("no answer") else {
                    Issue.record("expected the call to fail at once as unreachable, got \(error)")
                    return
                }
            }
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await device.pull(after: 0, limit: 10).count == 10, "the next call reconnects")
            await device.close()
        }
    }
}
