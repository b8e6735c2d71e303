import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Crash consistency: a `coffer-stress` child is SIGKILLed at random moments while it commits,
/// rotates the key or writes a backup; the database must then open, pass `integrity_check`,
/// hold every acknowledged commit and no torn one.
///
/// Each test prints its seed; `STRESS_SEED=<seed>` replays the same kill schedule (timing still
/// varies). `STRESS=1` runs ten times more kills.
@Suite(.serialized) struct CrashConsistency {
    /// What one verification of the ledger found.
    struct LedgerState {
        var counter: Int64
        var sum: Int64
        var integrity: [String]
    }

    /// Opens the ledger with `key` and reads it; the database is released before returning.
    static func readLedger(_ url: URL, key: Data) throws -> LedgerState {
        var options = DatabaseOptions()
        options.key = .raw(key)
        options.createIfMissing = false
        let state: LedgerState = try {
            let db = try TestSupport.open(url, options: options)
            db.registerCodable(Int64.self, forCollection: Ledger.accounts)
            db.registerCodable(Int64.self, forCollection: Ledger.meta)
            let connection = try db.newConnection()
            let integrity = try connection.integrityCheck()
            return try connection.read { tx in
                var sum: Int64 = 0
                for index in 0..<Ledger.accountCount {
                    sum += try tx.object(forKey: Ledger.accountKey(index), inCollection: Ledger.accounts, as: Int64.self) ?? 0
                }
                let counter = try tx.object(forKey: Ledger.counterKey, inCollection: Ledger.meta, as: Int64.self) ?? -1
                return LedgerState(counter: counter, sum: sum, integrity: integrity)
            }
        }()
        try TestSupport.waitUntilClosed(url)
        return state
    }

    @Test func killedWriterLosesNoAcknowledgedCommitAndTearsNone() throws {
        let seed = StressSettings.seed()
        print("CrashConsistency.writer seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        let kills = StressSettings.kills(ci: 60, stress: 400)
        let directory = TemporaryDirectory("coffer-crash-writer")
        let url = directory.file("ledger.sqlite")
        let key = TestSupport.randomKey()
        let environment = ["COFFER_STRESS_KEY": StressSettings.hex(key)]

        var floor: Int64 = 0  // the highest counter known committed (acknowledged or read back)
        var killedWhileRunning = 0
        var maxAcknowledged: Int64 = 0
        var committedUnacknowledged = 0  // kills between COMMIT and the acknowledgement line
        for iteration in 0..<kills {
            let child = try StressChild(
                ["writer", "--database", url.path, "--seed", "\(rng.next())"], environment: environment,
                logDirectory: directory.url)
            // One kill in five lands at a random moment of start-up (open, WAL recovery, seeding).
            if iteration == 0 || Int.random(in: 0..<5, using: &rng) != 0 {
                try child.waitUntilReady()
                pause(microseconds: Int.random(in: 0..<40_000, using: &rng))
            } else {
                pause(microseconds: Int.random(in: 0..<60_000, using: &rng))
            }
            if child.killNow() { killedWhileRunning += 1 }
            let acknowledged = child.lines.compactMap { Int64($0) }.last
            if let acknowledged { maxAcknowledged = max(maxAcknowledged, acknowledged) }
            let lower = max(floor, acknowledged ?? 0)

            // Iteration 0 always runs to "ready", so the ledger exists from then on.
            let state = try Self.readLedger(url, key: key)
            #expect(state.integrity == ["ok"], "iteration \(iteration) seed \(seed)")
            #expect(state.sum == Ledger.total, "iteration \(iteration) seed \(seed): torn transfer")
            #expect(state.counter >= lower, "iteration \(iteration) seed \(seed): lost an acknowledged commit")
            #expect(state.counter <= lower + 1, "iteration \(iteration) seed \(seed): counter ran ahead")
            if state.counter == lower + 1 { committedUnacknowledged += 1 }
            floor = max(floor, state.counter)
        }
        print(
            "CrashConsistency.writer: \(kills) kills (\(killedWhileRunning) while running), "
                + "final counter \(floor), highest acknowledged \(maxAcknowledged), "
                + "\(committedUnacknowledged) kills landed between a commit and its acknowledgement")
        #expect(killedWhileRunning == kills, "the child should never exit on its own")
        #expect(floor > 0, "the child committed nothing in \(kills) runs")
    }
}
