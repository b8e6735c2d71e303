import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// When Coffer's background checkpoints run: after a pause in the transactions, or in bounded time.
///
/// Even commits that never pause, or a read that stays open, get a checkpoint within about five
/// seconds. A checkpoint is seen by the database file growing: until one runs, every committed
/// page stays in the WAL.
@Suite struct CheckpointSchedulingTests {
    private static let value = String(repeating: "v", count: 3000)
    /// Enough 3,000-byte values for well over 1,000 pages of WAL, the step that schedules a checkpoint.
    private static let burst = 1500
    /// The file holds at least this much once the burst was checkpointed into it.
    private static let checkpointedSize = 4 * 1024 * 1024

    private func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
    }

    private func writeBurst(_ conn: Connection) throws {
        try conn.readWrite { tx in
            for index in 0..<Self.burst {
                try tx.setObject(Self.value, forKey: "k\(index)", inCollection: "burst")
            }
        }
    }

    @Test func aBurstIsCheckpointedOnceTheTransactionsPause() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        try writeBurst(conn)
        #expect(fileSize(test.database.walURL) > Self.checkpointedSize)
        // Within 4 s, less than the longest deferral (5 s): the checkpoint ran because the database
        // went idle (50 ms), not because it had waited long enough.
        #expect(
            TestSupport.wait(timeout: .seconds(4)) { fileSize(test.url) >= Self.checkpointedSize },
            "no checkpoint copied the burst into the file after the commits stopped")
        #expect(try conn.read { tx in try tx.numberOfKeys(inCollection: "burst") } == Self.burst)
    }

    @Test func commitsThatNeverPauseStillGetACheckpoint() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        try writeBurst(conn)
        // Small commits 5 ms apart, far closer together than the quiet period, until the burst
        // reached the file (the longest deferral is 5 s) or 15 s passed.
        let deadline = ContinuousClock.now + .seconds(15)
        var commits = 0
        while fileSize(test.url) < Self.checkpointedSize, ContinuousClock.now < deadline {
            try conn.readWrite { tx in try tx.setObject(commits, forKey: "counter", inCollection: "ticks") }
            commits += 1
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(
            fileSize(test.url) >= Self.checkpointedSize,
            "\(commits) commits without a pause kept every checkpoint waiting for 15 s")
        let last = try conn.read { tx in try tx.object(forKey: "counter", inCollection: "ticks", as: Int.self) }
        #expect(last == commits - 1)
    }

    @Test func aReadThatStaysOpenDelaysTheCheckpointOnlySoLong() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let reader = try test.connection()
        try writeBurst(writer)
        let (count, checkpointed) = try reader.read { tx throws -> (Int, Bool) in
            // The read pins the burst's snapshot, so a passive checkpoint can copy all of it.
            let count = try tx.numberOfKeys(inCollection: "burst")
            return (count, TestSupport.wait(timeout: .seconds(15)) { fileSize(test.url) >= Self.checkpointedSize })
        }
        #expect(count == Self.burst)
        #expect(checkpointed, "an open read transaction kept the checkpoint waiting for 15 s")
    }
}
