import Coffer
import CofferTestSupport
import Foundation
import Testing

extension CrashConsistency {
    /// The rows `coffer-stress backup` puts in its database.
    static let backupRows = 2_000

    /// Opens the backup at `url` and returns its integrity check and row count.
    static func readBackup(_ url: URL, key: Data) throws -> (integrity: [String], rows: Int) {
        var options = DatabaseOptions()
        options.key = .raw(key)
        options.createIfMissing = false
        let result: (integrity: [String], rows: Int) = try {
            let db = try TestSupport.open(url, options: options)
            let connection = try db.newConnection()
            return (try connection.integrityCheck(), try connection.read { try $0.numberOfKeys(inCollection: "blobs") })
        }()
        try TestSupport.waitUntilClosed(url, options: options)
        return result
    }

    @Test func killDuringBackupNeverLeavesAPartialBackupAtTheDestination() throws {
        let seed = StressSettings.seed()
        print("CrashConsistency.backup seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        let kills = StressSettings.kills(ci: 30, stress: 300)
        let directory = TemporaryDirectory("coffer-crash-backup")
        let url = directory.file("source.sqlite")
        let backups = directory.url.appendingPathComponent("backups", isDirectory: true)
        try FileManager.default.createDirectory(at: backups, withIntermediateDirectories: true)
        let key = TestSupport.randomKey()
        let environment = ["COFFER_STRESS_KEY": StressSettings.hex(key)]

        var checked = 0
        var acknowledgedTotal = 0
        for iteration in 0..<kills {
            let prefix = backups.appendingPathComponent("run\(iteration)").path
            let child = try StressChild(
                ["backup", "--database", url.path, "--destination", prefix, "--rows", "\(Self.backupRows)"],
                environment: environment, logDirectory: directory.url)
            try child.waitUntilReady()
            pause(microseconds: Int.random(in: 0..<200_000, using: &rng))
            #expect(child.killNow(), "iteration \(iteration): the child exited on its own: \(child.errorOutput)")
            let acknowledged = Set(child.lines.compactMap { $0.hasPrefix("backup ") ? Int($0.dropFirst(7)) : nil })
            acknowledgedTotal += acknowledged.count

            let names = try FileManager.default.contentsOfDirectory(atPath: backups.path)
            let destinations = names.filter {
                $0.hasPrefix("run\(iteration)-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
                    && !$0.hasSuffix("-journal")
            }
            for index in acknowledged {
                #expect(destinations.contains("run\(iteration)-\(index)"), "acknowledged backup \(index) is missing")
            }
            for name in destinations {
                let backup = try Self.readBackup(backups.appendingPathComponent(name), key: key)
                #expect(backup.integrity == ["ok"], "iteration \(iteration) seed \(seed): \(name)")
                #expect(backup.rows == Self.backupRows, "iteration \(iteration) seed \(seed): \(name) is incomplete")
                checked += 1
            }
            // The source survives a kill during a backup too.
            let source = try Self.readBackup(url, key: key)
            #expect(source.integrity == ["ok"] && source.rows == Self.backupRows)
        }
        let leftovers = try Self.partialFiles(in: backups)
        print(
            "CrashConsistency.backup: \(kills) kills, \(acknowledgedTotal) acknowledged backups, "
                + "\(checked) destination files verified, \(leftovers.count) leftover partial files")
        #expect(acknowledgedTotal > 0, "no backup completed before a kill")
        withKnownIssue(
            """
            Known issue (library): a crash during backup(to:) leaves its `.<name>.coffer-partial-<UUID>` \
            file (and its -journal) beside the destination. The destination itself is never partial \
            (checked above), but the leftovers are never cleaned up and leak disk space.
            """, isIntermittent: true
        ) {
            #expect(leftovers.count == 0, "leftover partial files")
        }
    }
}
