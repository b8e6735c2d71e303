import Coffer
import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// A failing disk under WAL checkpoints — explicit, in the background, and when the database
/// closes: no committed data is lost, an explicit checkpoint fails with a typed error, commits
/// keep working, and the next checkpoint after the fault clears completes.
@Suite struct FaultInjectionCheckpoint {
    /// One way the disk fails during a checkpoint.
    struct Fault: Sendable, CustomTestStringConvertible {
        var operation: IOFault.Operation
        var file: IOFault.FileKind
        var resultCode: Int32?

        var testDescription: String {
            resultCode == SQLiteError.ResultCode.full ? "disk full" : "\(operation) error on \(file)"
        }
    }

    static let faults = [
        Fault(operation: .write, file: .mainDatabase),
        Fault(operation: .write, file: .any, resultCode: SQLiteError.ResultCode.full),
        Fault(operation: .sync, file: .any), Fault(operation: .read, file: .wal),
        Fault(operation: .truncate, file: .wal),
    ]

    @Test(arguments: faults)
    func explicitCheckpointFaultLosesNothingAndTheNextCheckpointCompletes(_ fault: Fault) throws {
        let disk = try FaultyDisk("checkpoint")
        let db = try disk.open()
        let connection = try db.newConnection()
        var expected: [String: Int] = [:]
        // Every round starts the same way: an empty WAL, then two batches committed into it.
        func fillWAL(_ round: String) throws {
            for part in ["1", "2"] {
                try Batch(name: "\(round)-\(part)").commit(on: connection)
                expected["\(round)-\(part)"] = 12
            }
        }
        try db.checkpoint(truncate: true)
        try fillWAL("calibrate")
        disk.controller.resetCounts()
        try db.checkpoint(truncate: true)
        let count = disk.controller.calls(fault.operation, on: fault.file)
        #expect(count > 0, "a checkpoint made no \(fault.operation) call on \(fault.file)")
        var failures = 0
        for nth in 1...max(count, 1) {
            let context = "\(fault.testDescription) #\(nth) of \(count)"
            try fillWAL("r\(nth)")
            disk.controller.arm(IOFault(fault.operation, on: fault.file, nth: nth, resultCode: fault.resultCode))
            let error = databaseError { try db.checkpoint(truncate: true) }
            #expect(disk.controller.injectedSinceArmed > 0, "\(context): the fault never fired")
            disk.controller.disarm()
            if let error {
                failures += 1
                #expect(error.code == .io, "\(context): \(error)")
            }
            // What a crash right now would leave still holds every commit.
            let image = try FaultyDisk.inspect(try disk.crashImage("crash-\(nth).sqlite"), key: disk.key)
            #expect(image == Contents(batches: expected), "\(context): crash image \(image)")
            #expect(try Contents(connection) == Contents(batches: expected), "\(context): same connection")
            #expect(try Contents(db) == Contents(batches: expected), "\(context): fresh connection")
            try db.checkpoint(truncate: true)
            #expect(
                (try FileManager.default.attributesOfItem(atPath: db.walURL.path)[.size] as? Int) == 0,
                "\(context): the next checkpoint did not empty the WAL")
        }
        try Batch(name: "last").commit(on: connection)
        expected["last"] = 12
        #expect(try Contents(db) == Contents(batches: expected))
        print(
            "FaultInjection.checkpoint [\(fault.testDescription)]: \(count) fault points, "
                + "\(failures) checkpoints failed with .io, \(count - failures) completed regardless")
    }

    @Test func backgroundCheckpointFaultsNeverFailACommit() throws {
        let disk = try FaultyDisk("checkpoint-background")
        var options = disk.options
        // A checkpoint every few frames instead of every 1,000.
        options.walTruncationThreshold = 64 * 1024
        let db = try TestSupport.open(disk.url, options: options)
        let connection = try db.newConnection()
        var expected: [String: Int] = [:]
        // The disk stays broken for the database file: every checkpoint fails, the WAL takes the commits.
        disk.controller.arm(IOFault(.write, on: .mainDatabase, persistent: true))
        var rounds = 0
        while disk.controller.injectedSinceArmed == 0 && rounds < 200 {
            rounds += 1
            try Batch(name: "b\(rounds)").commit(on: connection)
            expected["b\(rounds)"] = 12
        }
        // Background checkpoints run on their own queue: give the last one a moment to hit the fault.
        #expect(TestSupport.wait { disk.controller.injectedSinceArmed > 0 }, "no background checkpoint ran")
        for extra in 0..<10 {
            try Batch(name: "extra\(extra)").commit(on: connection)
            expected["extra\(extra)"] = 12
        }
        let injected = disk.controller.injectedSinceArmed
        #expect(databaseError { try db.checkpoint() }?.code == .io)
        disk.controller.disarm()
        #expect(try Contents(connection) == Contents(batches: expected))
        try db.checkpoint(truncate: true)
        #expect((try FileManager.default.attributesOfItem(atPath: db.walURL.path)[.size] as? Int) == 0)
        #expect(try Contents(db) == Contents(batches: expected))
        print(
            "FaultInjection.checkpoint [background]: \(rounds + 10) commits while every checkpoint failed "
                + "(\(injected) faults injected), none lost")
    }

    @Test(arguments: [IOFault.Operation.write, .sync])
    func faultWhileClosingLosesNothing(_ operation: IOFault.Operation) throws {
        let disk = try FaultyDisk("checkpoint-close")
        var expected: [String: Int] = [:]
        var injected = 0
        for round in 0..<3 {
            try {
                let db = try disk.open()
                try Batch(name: "c\(round)").commit(on: try db.newConnection())
                expected["c\(round)"] = 12
                // The last handle to close checkpoints the WAL into the file, then deletes it.
                disk.controller.arm(IOFault(operation, persistent: true))
            }()
            try TestSupport.waitUntilClosed(disk.url)
            #expect(disk.controller.injectedSinceArmed > 0, "closing made no \(operation) call")
            injected += disk.controller.injectedSinceArmed
            disk.controller.disarm()
            #expect(try disk.inspect() == Contents(batches: expected), "\(operation), round \(round)")
        }
        print(
            "FaultInjection.checkpoint [close, \(operation)]: 3 closes with a broken disk (\(injected) faults injected), nothing lost"
        )
    }
}
