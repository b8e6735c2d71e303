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
        try TestSupport.waitUntilClosed(url)
        return result
    }

    /// Backs the database at `url` up to each of `destinations`, in the test process.
    static func backUp(_ url: URL, key: Data, to destinations: [URL]) throws {
        var options = DatabaseOptions()
        options.key = .raw(key)
        options.createIfMissing = false
        try {
            let db = try TestSupport.open(url, options: options)
            let connection = try db.newConnection()
            for destination in destinations { try connection.backup(to: destination) }
        }()
        try TestSupport.waitUntilClosed(url)
    }

    /// The destination name in a partial file's name (`.<destination>.coffer-partial-<UUID>…`).
    static func destination(ofPartial name: String) -> String? {
        guard name.hasPrefix("."), let marker = name.range(of: ".coffer-partial-") else { return nil }
        return String(name[name.index(after: name.startIndex)..<marker.lowerBound])
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
        // A killed backup's copy stays beside its destination until the next backup to that
        // destination, which removes it (the dead child's lock on it is gone).
        let leftovers = try Self.partialFiles(in: backups)
        let revisited = Set(leftovers.compactMap(Self.destination(ofPartial:)))
        try Self.backUp(url, key: key, to: revisited.sorted().map { backups.appendingPathComponent($0) })
        let remaining = try Self.partialFiles(in: backups)
        print(
            "CrashConsistency.backup: \(kills) kills, \(acknowledgedTotal) acknowledged backups, "
                + "\(checked) destination files verified, \(leftovers.count) partial files left by killed backups "
                + "to \(revisited.count) destinations, \(remaining.count) left after backing up to those again")
        #expect(acknowledgedTotal > 0, "no backup completed before a kill")
        #expect(remaining.isEmpty, "partial files left after the next backup to their destination: \(remaining)")
    }
}
