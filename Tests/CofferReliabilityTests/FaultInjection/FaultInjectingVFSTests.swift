import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// The fault-injecting VFS itself, on plain SQLite handles: it counts and fails exactly the
/// calls it is told to, only in its own directory, and gets out of the way when disarmed.
@Suite struct FaultInjectingVFSTests {
    /// A rollback-journal database (one write transaction = journal writes, syncs and database
    /// writes) opened through the fault VFS in a directory of its own.
    final class Fixture {
        let controller: FaultController
        let directory = TemporaryDirectory("coffer-vfs")
        let handle: SQLiteConnection

        init(_ name: String = "plain.sqlite") throws {
            try FaultInjectingVFS.register()
            controller = FaultController(directory: directory.url.path)
            handle = try SQLiteConnection(path: directory.file(name).path, vfs: FaultInjectingVFS.name)
            try handle.execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL")
            try handle.execute("CREATE TABLE t (v TEXT)")
        }

        func insert(_ value: String = "v") -> SQLiteError? {
            do {
                try handle.execute("INSERT INTO t VALUES ('\(value)')")
                return nil
            } catch {
                return error as? SQLiteError
            }
        }

        func rows() throws -> Int64 { try handle.scalarInt("SELECT count(*) FROM t") ?? -1 }
    }

    @Test func registeringTwiceIsHarmlessAndAnUnknownVFSFailsToOpen() throws {
        try FaultInjectingVFS.register()
        try FaultInjectingVFS.register()
        let directory = TemporaryDirectory("coffer-vfs")
        #expect(throws: SQLiteError.self) {
            _ = try SQLiteConnection(path: directory.file("x.sqlite").path, vfs: "coffer-no-such-vfs")
        }
    }

    @Test func countsCallsByOperationAndFileKind() throws {
        let fixture = try Fixture()
        fixture.controller.resetCounts()
        #expect(fixture.insert() == nil)
        let controller = fixture.controller
        #expect(controller.calls(.write, on: .journal) > 0)
        #expect(controller.calls(.write, on: .mainDatabase) > 0)
        #expect(controller.calls(.sync, on: .any) >= 2)
        #expect(controller.calls(.write, on: .wal) == 0)
        #expect(
            controller.calls(.write)
                == controller.calls(.write, on: .journal) + controller.calls(.write, on: .mainDatabase)
                + controller.calls(.write, on: .other))
        #expect(controller.injectedTotal == 0)
    }

    @Test func aOneShotFaultFailsTheNthMatchingCallOnly() throws {
        let fixture = try Fixture()
        fixture.controller.arm(IOFault(.write, on: .mainDatabase, nth: 1))
        let error = fixture.insert("lost")
        #expect(error?.code == SQLiteError.ResultCode.ioerr)
        #expect(error?.extendedCode == SQLiteError.IOErrorCode.write)
        #expect(fixture.controller.injectedSinceArmed == 1)
        // Still armed, but spent: the next transactions go through.
        #expect(fixture.insert("kept") == nil)
        #expect(fixture.insert("kept") == nil)
        #expect(fixture.controller.injectedSinceArmed == 1)
        #expect(try fixture.rows() == 2)
        #expect(try fixture.handle.integrityCheck() == ["ok"])
    }

    @Test func aPersistentFaultFailsEveryMatchingCallUntilDisarmed() throws {
        let fixture = try Fixture()
        fixture.controller.arm(IOFault(.sync, nth: 1, persistent: true))
        for _ in 0..<3 {
            #expect(fixture.insert()?.extendedCode == SQLiteError.IOErrorCode.fsync)
        }
        #expect(fixture.controller.injectedSinceArmed >= 3)
        #expect(fixture.controller.armedFault?.persistent == true)
        fixture.controller.disarm()
        #expect(fixture.controller.armedFault == nil)
        #expect(fixture.insert() == nil)
        #expect(try fixture.rows() == 1)
        #expect(try fixture.handle.integrityCheck() == ["ok"])
    }

    @Test func aFullDiskFailsWritesWithSQLiteFull() throws {
        let fixture = try Fixture()
        fixture.controller.arm(.diskFull())
        #expect(fixture.insert()?.code == SQLiteError.ResultCode.full)
        #expect(try fixture.rows() == 0)
        fixture.controller.disarm()
        #expect(fixture.insert() == nil)
    }

    @Test func countingStartsWhenTheFaultIsArmed() throws {
        let fixture = try Fixture()
        #expect(fixture.insert() == nil)
        fixture.controller.resetCounts()
        #expect(fixture.insert() == nil)
        let perInsert = fixture.controller.calls(.write)
        // The last write of the second insert after arming, whatever came before the arming.
        fixture.controller.arm(IOFault(.write, nth: 2 * perInsert))
        #expect(fixture.insert() == nil)
        #expect(fixture.controller.injectedSinceArmed == 0)
        #expect(fixture.insert() != nil)
        #expect(fixture.controller.injectedSinceArmed == 1)
    }

    @Test func faultsStayInTheirControllersDirectory() throws {
        let armed = try Fixture()
        let neighbour = try Fixture()
        let plain = TemporaryDirectory("coffer-vfs")
        // A file of the VFS outside every controller's directory is never failed.
        let unscoped = try SQLiteConnection(path: plain.file("free.sqlite").path, vfs: FaultInjectingVFS.name)
        armed.controller.arm(IOFault(.write, persistent: true))
        #expect(armed.insert() != nil)
        #expect(neighbour.insert() == nil)
        try unscoped.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1)")
        #expect(neighbour.controller.injectedTotal == 0)
        // The innermost directory's controller governs a nested one.
        let nested = armed.directory.file("nested")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let inner = FaultController(directory: nested.path)
        let innerHandle = try SQLiteConnection(
            path: nested.appendingPathComponent("n.sqlite").path, vfs: FaultInjectingVFS.name)
        try innerHandle.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1)")
        #expect(inner.calls(.write) > 0)
    }

    @Test func aReadFaultSurfacesAsAnIOErrorAndClears() throws {
        let fixture = try Fixture()
        #expect(fixture.insert() == nil)
        fixture.handle.releaseMemory()
        fixture.controller.arm(IOFault(.read, on: .mainDatabase, persistent: true))
        #expect(throws: SQLiteError.self) { _ = try fixture.rows() }
        fixture.controller.disarm()
        #expect(try fixture.rows() == 1)
    }
}
