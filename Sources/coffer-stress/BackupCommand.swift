import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress backup`: fills a database, then backs it up over and over until killed.
///
/// Backup `i` goes to `<destination>-<i>` and is acknowledged as "backup <i>" once `backup(to:)`
/// returned. The parent checks that every destination either does not exist or is a complete,
/// valid database.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Backs a database up repeatedly until killed.")

    @Option(help: "The database file (created and filled when missing).")
    var database: String

    @Option(help: "Destination prefix: backup i is written to <prefix>-<i>.")
    var destination: String

    @Option(help: "Rows of 1 KiB to put in a new database (makes each backup take a while).")
    var rows: Int = 2_000

    @Option(help: "Stop after this many backups (0: run until killed).")
    var limit: Int = 0

    func run() throws {
        Acknowledge.start()
        var options = DatabaseOptions()
        options.key = .raw(try StressKeys.key(StressKeys.keyVariable))
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        db.registerData(forCollection: "blobs")
        let connection = try db.newConnection()
        try connection.readWrite { tx in
            guard try tx.numberOfKeys(inCollection: "blobs") == 0 else { return }
            for n in 0..<rows {
                try tx.setObject(Data(repeating: UInt8(truncatingIfNeeded: n), count: 1_024), forKey: "b\(n)", inCollection: "blobs")
            }
        }
        Acknowledge.line("ready")
        var index = 0
        while limit == 0 || index < limit {
            try connection.backup(to: URL(fileURLWithPath: "\(destination)-\(index)"))
            Acknowledge.line("backup \(index)")
            index += 1
        }
    }
}
