import Coffer
import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// Read faults: a failing read surfaces as a typed error, and reads work again once it clears.
///
/// Never a crash, a silent nil or a wrong value; a read fault while opening never passes for damage.
@Suite struct FaultInjectionRead {
    static let batches = ["a", "b", "c"]
    static let uncached = ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false)

    /// Creates the database; with `inWAL` the rows stay in the WAL (the database is kept open),
    /// otherwise closing copies them into the main file.
    static func populate(_ disk: FaultyDisk, inWAL: Bool) throws -> Database? {
        let db = try disk.open()
        let connection = try db.newConnection()
        for name in batches { try Batch(name: name).commit(on: connection) }
        return inWAL ? db : nil
    }

    /// Reads every row one by one, then by enumeration, and checks each value.
    static func readEverything(_ connection: Connection) throws -> Int {
        try connection.read { tx in
            var checked = 0
            for name in batches {
                for index in 0..<Batch(name: name).rows {
                    let value = try tx.object(
                        forKey: "\(name)-\(index)", inCollection: Batch.collection, as: String.self)
                    #expect(
                        value?.hasPrefix("\(name)|\(index)|") == true, "row \(name)-\(index) read as \(value ?? "nil")")
                    checked += 1
                }
            }
            let keys = try tx.allKeys(inCollection: Batch.collection)
            #expect(keys.count == checked, "enumeration found \(keys.count) rows, lookups \(checked)")
            return checked + keys.count
        }
    }

    @Test(arguments: [IOFault.FileKind.mainDatabase, .wal], [false, true])
    func readFaultThrowsATypedErrorAndReadsWorkAfterItClears(_ file: IOFault.FileKind, persistent: Bool) throws {
        let disk = try FaultyDisk("read")
        let keepOpen = try Self.populate(disk, inWAL: file == .wal)
        let db = try keepOpen ?? disk.open()
        let calibration = try db.newConnection(config: Self.uncached)
        calibration.flushMemory()
        disk.controller.resetCounts()
        _ = try Self.readEverything(calibration)
        let calls = disk.controller.calls(.read, on: file)
        #expect(calls > 0, "reading everything made no read on \(file)")
        var injected = 0
        for nth in 1...max(calls, 1) {
            // With SQLite's page cache emptied too (a new connection may reuse a pooled handle),
            // every read reaches the file.
            let connection = try db.newConnection(config: Self.uncached)
            connection.flushMemory()
            disk.controller.arm(IOFault(.read, on: file, nth: nth, persistent: persistent))
            let error = databaseError { _ = try Self.readEverything(connection) }
            injected += disk.controller.injectedSinceArmed
            #expect(disk.controller.injectedSinceArmed > 0, "\(file) read \(nth): the fault never fired")
            #expect(error?.code == .io, "\(file) read \(nth) of \(calls): \(String(describing: error))")
            #expect(error?.sqliteCode == SQLiteError.ResultCode.ioerr, "\(file) read \(nth)")
            disk.controller.disarm()
            #expect(try Self.readEverything(connection) == 72, "\(file) read \(nth): reading again after the fault")
        }
        #expect(try Contents(db) == Contents(batches: ["a": 12, "b": 12, "c": 12]))
        print(
            "FaultInjection.read [\(file), \(persistent ? "persistent" : "once")]: \(calls) fault points, \(injected) faults injected"
        )
    }

    @Test(arguments: [false, true])
    func readFaultWhileOpeningIsAnIOErrorAndNeverMovesTheFileAside(_ persistent: Bool) throws {
        let disk = try FaultyDisk("read-open")
        _ = try Self.populate(disk, inWAL: false)
        // The released database may still be closing its handles (and checkpointing): count the
        // reads of an open of the quiet file, not of one that also finds a log to read.
        try TestSupport.waitUntilClosed(disk.url)
        var options = disk.options
        // The dangerous setting: a read error taken for damage would move the file aside.
        options.corruptAction = .rename
        let calls = try {
            disk.controller.resetCounts()
            let db = try TestSupport.open(disk.url, options: options)
            defer { withExtendedLifetime(db) {} }
            return disk.controller.calls(.read, on: .any)
        }()
        try TestSupport.waitUntilClosed(disk.url)
        #expect(calls > 0)
        let before = TestSupport.bytes(of: disk.url)
        var injected = 0
        var failedOpens = 0
        for nth in 1...max(calls, 1) {
            disk.controller.resetCounts()
            disk.controller.arm(IOFault(.read, on: .any, nth: nth, persistent: persistent))
            let error = databaseError { _ = try TestSupport.open(disk.url, options: options) }
            let fired = disk.controller.injectedSinceArmed
            let reads = disk.controller.calls(.read, on: .any)
            injected += fired
            disk.controller.disarm()
            // An open can read less than the counted one (a page already in a log another handle
            // just checkpointed); a fault point past its last read cannot fire.
            #expect(fired > 0 || reads < nth, "open read \(nth) of \(reads): the fault never fired")
            // SQLCipher ignores a failed read of the salt when the key names it, so some opens
            // succeed; a failing one must say `.io` (it said `.wrongKey` before the fix).
            if let error {
                failedOpens += 1
                #expect(error.code == .io, "open read \(nth) of \(calls): \(error)")
            }
            try TestSupport.waitUntilClosed(disk.url)
            #expect(disk.fileNames().filter { $0.hasSuffix(".corrupt") }.isEmpty, "open read \(nth): file moved aside")
            #expect(TestSupport.bytes(of: disk.url) == before, "open read \(nth): the file changed")
        }
        #expect(failedOpens > 0)
        #expect(try disk.inspect() == Contents(batches: ["a": 12, "b": 12, "c": 12]))
        print(
            "FaultInjection.read [open, \(persistent ? "persistent" : "once")]: \(calls) fault points, "
                + "\(injected) faults injected, \(failedOpens) opens failed with .io, the others succeeded")
    }

    /// Regression: a new connection's handle whose salt read failed reported `.notADatabase`.
    @Test(arguments: [false, true])
    func readFaultWhileOpeningAConnectionIsAnIOError(_ persistent: Bool) throws {
        let disk = try FaultyDisk("read-connection")
        _ = try Self.populate(disk, inWAL: false)
        let calls = try {
            let db = try disk.open()
            disk.controller.resetCounts()
            _ = try Self.readEverything(try db.newConnection(config: Self.uncached))
            return disk.controller.calls(.read, on: .any)
        }()
        var failures = 0
        for nth in 1...max(calls, 1) {
            let db = try disk.open()
            disk.controller.arm(IOFault(.read, on: .any, nth: nth, persistent: persistent))
            let error = databaseError { _ = try Self.readEverything(try db.newConnection(config: Self.uncached)) }
            #expect(disk.controller.injectedSinceArmed > 0, "connection read \(nth): the fault never fired")
            disk.controller.disarm()
            if let error {
                failures += 1
                #expect(error.code == .io, "connection read \(nth) of \(calls): \(error)")
            }
            #expect(try Self.readEverything(try db.newConnection(config: Self.uncached)) == 72)
        }
        #expect(failures > 0)
        print(
            "FaultInjection.read [new connection, \(persistent ? "persistent" : "once")]: \(calls) fault points, \(failures) failed with .io"
        )
    }
}
