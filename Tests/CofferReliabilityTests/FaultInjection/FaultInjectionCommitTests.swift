import Coffer
import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// A failing disk under a commit: the transaction fails with a typed error and leaves no trace,
/// what was committed before stays, and once the fault clears the same connection commits again.
@Suite struct FaultInjectionCommit {
    /// One way the disk fails during a commit.
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var operation: IOFault.Operation
        var file: IOFault.FileKind
        var persistent: Bool
        var resultCode: Int32
        var synchronous: DatabaseOptions.Synchronous
        /// Whether the failing commit follows another commit of the same open (the WAL then
        /// has frames and a header already) rather than being the first one after opening.
        var afterCommit = false

        func fault(nth: Int) -> IOFault {
            IOFault(operation, on: file, nth: nth, persistent: persistent, resultCode: resultCode)
        }

        var testDescription: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "WAL write error, once", operation: .write, file: .wal, persistent: false,
            resultCode: SQLiteError.IOErrorCode.write, synchronous: .normal),
        Scenario(
            name: "WAL write error, persistent", operation: .write, file: .wal, persistent: true,
            resultCode: SQLiteError.IOErrorCode.write, synchronous: .normal),
        Scenario(
            name: "disk full", operation: .write, file: .any, persistent: true,
            resultCode: SQLiteError.ResultCode.full, synchronous: .normal),
        Scenario(
            name: "WAL fsync error (synchronous FULL), once", operation: .sync, file: .wal, persistent: false,
            resultCode: SQLiteError.IOErrorCode.fsync, synchronous: .full),
        Scenario(
            name: "fsync error on any file (synchronous FULL), persistent", operation: .sync, file: .any,
            persistent: true, resultCode: SQLiteError.IOErrorCode.fsync, synchronous: .full),
        Scenario(
            name: "WAL write error after a commit, once", operation: .write, file: .wal, persistent: false,
            resultCode: SQLiteError.IOErrorCode.write, synchronous: .normal, afterCommit: true),
        Scenario(
            name: "WAL fsync error after a commit (synchronous FULL), once", operation: .sync, file: .wal,
            persistent: false, resultCode: SQLiteError.IOErrorCode.fsync, synchronous: .full, afterCommit: true),
    ]

    /// Creates the database with one batch, then opens it as every iteration does and returns
    /// how many calls the commit that will fail makes that the scenario's fault counts.
    static func calibrate(_ disk: FaultyDisk, _ scenario: Scenario, expected: inout [String: Int]) throws -> Int {
        try Batch(name: "base").commit(on: try disk.open().newConnection())
        expected["base"] = 12
        let db = try disk.open()
        let connection = try db.newConnection()
        try prepare(connection, scenario, name: "calibrate-warm", expected: &expected)
        disk.controller.resetCounts()
        try Batch(name: "calibrate").commit(on: connection)
        expected["calibrate"] = 12
        return disk.controller.calls(scenario.operation, on: scenario.file)
    }

    /// Brings a just-opened database to where the scenario's commit fails.
    static func prepare(
        _ connection: Connection, _ scenario: Scenario, name: String, expected: inout [String: Int]
    ) throws {
        _ = try Contents(connection)  // fills the connection's caches
        guard scenario.afterCommit else { return }
        try Batch(name: name).commit(on: connection)
        expected[name] = 12
    }

    @Test(arguments: scenarios)
    func failedCommitLeavesNoTraceAndTheSameConnectionCommitsAfterTheFaultClears(_ scenario: Scenario) throws {
        let disk = try FaultyDisk("commit", synchronous: scenario.synchronous)
        var expected: [String: Int] = [:]
        let calls = try Self.calibrate(disk, scenario, expected: &expected)
        #expect(calls > 0, "a commit made no \(scenario.operation) call on \(scenario.file)")
        var injected = 0
        var durableAfterCrash = 0
        for nth in 1...max(calls, 1) {
            let context = "\(scenario.name), call \(nth) of \(calls)"
            let db = try disk.open()
            let connection = try db.newConnection()
            try Self.prepare(connection, scenario, name: "warm-\(nth)", expected: &expected)
            let recorder = NotificationRecorder(db)
            let before = db.snapshot
            disk.controller.arm(scenario.fault(nth: nth))
            let error = databaseError { try Batch(name: "failed-\(nth)").commit(on: connection) }
            #expect(db.snapshot == before, "\(context): the snapshot moved")
            #expect(connection.snapshot == before, "\(context): the connection's snapshot moved")
            injected += disk.controller.injectedSinceArmed
            #expect(disk.controller.injectedSinceArmed > 0, "\(context): the fault never fired")
            #expect(error?.code == .io, "\(context): \(String(describing: error))")
            #expect(error?.sqliteCode == scenario.resultCode & 0xFF, "\(context)")
            #expect((error?.underlying as? SQLiteError)?.extendedCode == scenario.resultCode, "\(context)")

            // What a crash right now would leave: the failed commit is all there or not at all.
            let image = try FaultyDisk.inspect(try disk.crashImage("crash-\(nth).sqlite"), key: disk.key)
            #expect(image.integrity == ["ok"], "\(context): crash image")
            var imageBatches = image.batches
            if let failed = imageBatches.removeValue(forKey: "failed-\(nth)") {
                #expect(failed == 12, "\(context): crash image holds a torn transaction")
                durableAfterCrash += 1
            }
            #expect(imageBatches == expected, "\(context): crash image \(image)")

            disk.controller.disarm()
            #expect(try Contents(connection) == Contents(batches: expected), "\(context): same connection")
            #expect(try Contents(db) == Contents(batches: expected), "\(context): fresh connection")
            try Batch(name: "retry-\(nth)").commit(on: connection)
            expected["retry-\(nth)"] = 12
            #expect(try Contents(connection) == Contents(batches: expected), "\(context): after the retry")
            // Observers hear of the retry only: the failed commit was never announced.
            #expect(recorder.changeset(snapshot: before + 1) != nil, "\(context): no notification for the retry")
            #expect(recorder.changesets(after: before).count == 1, "\(context): \(recorder.changesets(after: before))")
        }
        // Released: the next open goes through the default VFS and WAL recovery.
        #expect(try disk.inspect() == Contents(batches: expected), "\(scenario.name): after reopening")
        print(
            "FaultInjection.commit [\(scenario.name)]: \(calls) fault points, \(injected) faults injected, "
                + "\(durableAfterCrash) failed commits durable in a crash image")
    }

    @Test(arguments: scenarios)
    func failedCommitIsAbsentAfterTheDatabaseIsClosedAndReopened(_ scenario: Scenario) throws {
        let disk = try FaultyDisk("commit-reopen", synchronous: scenario.synchronous)
        var expected: [String: Int] = [:]
        let calls = try Self.calibrate(disk, scenario, expected: &expected)
        for nth in 1...max(calls, 1) {
            try {
                let db = try disk.open()
                let connection = try db.newConnection()
                try Self.prepare(connection, scenario, name: "warm-\(nth)", expected: &expected)
                disk.controller.arm(scenario.fault(nth: nth))
                let error = databaseError { try Batch(name: "failed-\(nth)").commit(on: connection) }
                #expect(error?.code == .io, "\(scenario.name), call \(nth): \(String(describing: error))")
                disk.controller.disarm()
            }()
            // Closing checkpoints through the fault VFS (disarmed); reopening through the default one.
            #expect(try disk.inspect() == Contents(batches: expected), "\(scenario.name), call \(nth)")
        }
    }
}
