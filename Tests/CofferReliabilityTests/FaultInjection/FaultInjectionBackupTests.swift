import Coffer
import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// A failing disk under `backup(to:)`: faults on the destination's files fail the backup with a
/// typed error and never leave a partial file (or a changed one) at the destination; the source
/// is untouched, and the backup succeeds once the fault clears.
@Suite struct FaultInjectionBackup {
    /// How the backup copies: SQLite's page-by-page backup (same settings) or `sqlcipher_export`
    /// (other page size, other key).
    enum Mode: String, Sendable, CaseIterable {
        case pages
        case export
    }

    static let faults: [(IOFault.Operation, Int32?)] = [
        (.write, nil), (.write, SQLiteError.ResultCode.full), (.sync, nil), (.read, nil),
    ]
    static let expected = ["a": 12, "b": 12, "c": 12]
    /// Each backup fsyncs its copy and directory, so the loops sample the calls instead of trying all.
    static let pointsPerFault = 4

    /// Backs `connection`'s database up to `url` in `mode` (`key` is the export's key).
    static func backup(_ connection: Connection, to url: URL, mode: Mode, key: Data) throws {
        switch mode {
        case .pages:
            try connection.backup(to: url)
        case .export:
            try connection.backup(to: url, key: .raw(key), cipher: CipherSettings(pageSize: 1024))
        }
    }

    /// Options that open a backup made in `mode`.
    static func backupOptions(_ disk: FaultyDisk, mode: Mode, exportKey: Data) -> DatabaseOptions {
        var options = TestSupport.rawKeyOptions(mode == .pages ? disk.key : exportKey)
        if mode == .export { options.cipher = CipherSettings(pageSize: 1024) }
        options.createIfMissing = false
        return options
    }

    @Test(arguments: Mode.allCases)
    func backupFaultLeavesNothingAtTheDestinationAndTheSourceUntouched(_ mode: Mode) throws {
        let disk = try FaultyDisk("backup")
        let db = try disk.open()
        let connection = try db.newConnection()
        for name in Self.expected.keys.sorted() { try Batch(name: name).commit(on: connection) }
        // Backups go to a directory of their own, with its own controller: faults hit the
        // destination's files only, never the source's.
        let backups = disk.directory.file("backups")
        try FileManager.default.createDirectory(at: backups, withIntermediateDirectories: true)
        let destinationFaults = FaultController(directory: backups.path)
        let exportKey = TestSupport.randomKey()
        let options = Self.backupOptions(disk, mode: mode, exportKey: exportKey)
        let destination = backups.appendingPathComponent("backup.sqlite")

        destinationFaults.resetCounts()
        try Self.backup(connection, to: destination, mode: mode, key: exportKey)
        let calls = Dictionary(
            uniqueKeysWithValues: IOFault.Operation.allCases.map { ($0, destinationFaults.calls($0)) })
        try FileManager.default.removeItem(at: destination)
        var summary: [String] = []
        for (operation, code) in Self.faults {
            let count = calls[operation] ?? 0
            #expect(count > 0, "\(mode): a backup made no \(operation) call on its destination")
            var failures = 0
            var checkFailures = 0
            let points = faultPoints(count, limit: Self.pointsPerFault)
            for nth in points {
                // Every other round, an earlier backup sits at the destination and must survive.
                let previous: Data? =
                    nth.isMultiple(of: 2)
                    ? try {
                        try Self.backup(connection, to: destination, mode: mode, key: exportKey)
                        return TestSupport.bytes(of: destination)
                    }() : nil
                let context = "\(mode) \(operation)\(code.map { " (\($0))" } ?? "") #\(nth) of \(count)"
                destinationFaults.arm(IOFault(operation, nth: nth, resultCode: code))
                let error = databaseError { try Self.backup(connection, to: destination, mode: mode, key: exportKey) }
                let fired = destinationFaults.injectedSinceArmed
                destinationFaults.disarm()
                #expect(fired > 0, "\(context): the fault never fired")
                if let error {
                    failures += 1
                    if operation == .read {
                        if error.code == .corrupt { checkFailures += 1 }
                        withKnownIssue(FaultyDisk.verifyReadIssue, isIntermittent: true) {
                            #expect(error.code == .io, "\(context): \(error)")
                        }
                    } else {
                        #expect(error.code == .io, "\(context): \(error)")
                        #expect(
                            error.sqliteCode == (code ?? SQLiteError.ResultCode.ioerr) & 0xFF, "\(context): \(error)")
                    }
                } else {
                    // SQLite ignored the failed call (a read it can do without); the backup must be whole.
                    #expect(
                        try FaultyDisk.inspect(destination, options: options)
                            == Contents(batches: Self.expected), "\(context): a backup that reported success")
                }
                let left = (try? FileManager.default.contentsOfDirectory(atPath: backups.path)) ?? []
                if error == nil {
                    #expect(left == ["backup.sqlite"], "\(context): files left: \(left)")
                } else if let previous {
                    #expect(left == ["backup.sqlite"], "\(context): files left: \(left)")
                    #expect(TestSupport.bytes(of: destination) == previous, "\(context): the earlier backup changed")
                } else {
                    #expect(left.isEmpty, "\(context): files left: \(left)")
                }
                #expect(try Contents(connection) == Contents(batches: Self.expected), "\(context): source changed")
                try Self.backup(connection, to: destination, mode: mode, key: exportKey)
                #expect(
                    try FaultyDisk.inspect(destination, options: options)
                        == Contents(batches: Self.expected), "\(context): backup after the fault cleared")
                try FileManager.default.removeItem(at: destination)
            }
            summary.append(
                "\(operation)\(code == nil ? "" : " full"): \(points.count) of \(count) calls, \(failures) failed"
                    + (checkFailures > 0 ? " (\(checkFailures) as .corrupt)" : ""))
        }
        withExtendedLifetime(destinationFaults) {}
        print("FaultInjection.backup [\(mode)]: " + summary.joined(separator: "; "))
    }
}
