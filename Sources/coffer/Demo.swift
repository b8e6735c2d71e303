import ArgumentParser
import Coffer
import Dispatch
import Foundation

/// `coffer demo`: creates (or reopens) an encrypted database and shows what Coffer does.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write and read Codable values in an encrypted database, and show the file holds no plaintext.")

    @Option(help: "The database file (default: Coffer's default database location).")
    var database: String?

    @OptionGroup var output: OutputOptions

    /// `--json` output: what the demo did and found.
    struct Report: Codable, Equatable {
        /// One file of the database and whether the plaintext marker was found in it.
        struct Scan: Codable, Equatable {
            var file: String
            var bytes: Int
            var markerFound: Bool
        }
        var database: String
        var keyFile: String
        var created: Bool
        var sqlcipherVersion: String
        var sqliteVersion: String
        var pageSize: Int
        var notesWritten: Int
        var notification: String
        var notesRead: Int
        var scans: [Scan]
        var plaintextHeader: Bool
    }

    struct Note: Codable, Sendable {
        var title: String
        var body: String
    }

    func run() throws {
        let url = database.map { URL(fileURLWithPath: $0) } ?? Database.defaultDatabaseURL
        let keyURL = URL(fileURLWithPath: url.path + ".key")
        let isNew = !FileManager.default.fileExists(atPath: url.path)
        var options = DatabaseOptions()
        options.key = .raw(try DemoKey.loadOrCreate(at: keyURL))

        let db = try Database(url: url, options: options)
        // With --json the lines are left out and the figures go into one report at the end.
        let say: (String) -> Void = output.json ? { _ in } : { Swift.print($0) }
        say("Coffer demo — SQLCipher \(db.cipherVersion) on SQLite \(db.sqliteVersion)")
        say("Database: \(url.path) (\(isNew ? "new" : "existing"), snapshot \(db.snapshot), \(db.pageSize)-byte pages)")
        say("Key:      random 256-bit raw key in \(keyURL.path) (mode 0600)")
        db.registerCodable(Note.self, forCollection: "notes")

        let notified = DispatchSemaphore(value: 0)
        let message = Locked("Notified: (no change notification within 5 s)")
        let observer = NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: db, queue: nil
        ) { notification in
            if let changeset = notification.userInfo?[Database.changesetKey] as? Changeset {
                let keys = changeset.objectChanges.sorted().map(\.description).joined(separator: ", ")
                message.withLock {
                    $0 =
                        "Notified: snapshot \(changeset.snapshot), objects changed: \(keys), "
                        + "new rows: \(changeset.insertedKeys.count)"
                }
            }
            notified.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let marker = "PLAINTEXT-MARKER-\(UUID().uuidString.prefix(8))"
        let notes = [
            "n1": Note(title: "Groceries", body: "eggs, bread — \(marker)"),
            "n2": Note(title: "Wi-Fi", body: "the password is on the fridge — \(marker)"),
            "n3": Note(title: "Ideas", body: "an encrypted store for every app — \(marker)"),
        ]
        let connection = try db.newConnection()
        try connection.readWrite { tx in
            for (key, note) in notes.sorted(by: { $0.key < $1.key }) {
                try tx.setObject(note, forKey: key, inCollection: "notes")
            }
        }
        say("Wrote:    \(notes.count) notes in one transaction → snapshot \(db.snapshot)")
        _ = notified.wait(timeout: .now() + 5)
        say(message.withLock { $0 })

        let reader = try db.newConnection()
        let (count, first) = try reader.read { tx in
            (
                try tx.numberOfKeys(inCollection: "notes"),
                try tx.object(forKey: "n1", inCollection: "notes", as: Note.self)
            )
        }
        say("Read:     \(count) notes; n1 = \"\(first?.title ?? "?")\": \"\(first?.body ?? "?")\"")

        let needle = Data(marker.utf8)
        var scans: [Report.Scan] = []
        for file in [url, db.walURL, db.shmURL] {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            scans.append(
                Report.Scan(
                    file: file.lastPathComponent, bytes: bytes.count, markerFound: bytes.range(of: needle) != nil))
        }
        let report = scans.map { "\($0.file) (\($0.bytes) B): \($0.markerFound ? "FOUND" : "absent")" }
        say("Scan:     marker \"\(marker)\" → " + report.joined(separator: "; "))
        let header = ((try? FileHandle(forReadingFrom: url).read(upToCount: 16)) ?? nil) ?? Data()
        let plain = header.starts(with: Data("SQLite format 3".utf8))
        say(
            "Header:   \(header.map { String(format: "%02x", $0) }.joined(separator: " ")) — \(plain ? "PLAINTEXT SQLite header!" : "random-looking, not \"SQLite format 3\"")"
        )
        guard output.json else { return }
        try JSONOutput.print(
            Report(
                database: url.path, keyFile: keyURL.path, created: isNew, sqlcipherVersion: db.cipherVersion,
                sqliteVersion: db.sqliteVersion, pageSize: db.pageSize, notesWritten: notes.count,
                notification: message.withLock { $0 }, notesRead: count, scans: scans, plaintextHeader: plain))
    }
}

/// The demo's key: 32 random bytes kept next to the database with mode 0600.
enum DemoKey {
    static func loadOrCreate(at url: URL) throws -> Data {
        if let key = try? Data(contentsOf: url) {
            guard key.count == 32 else { throw ValidationError("\(url.path) is not a 32-byte key file") }
            return key
        }
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: url.path, contents: key, attributes: [.posixPermissions: 0o600])
        else { throw ValidationError("cannot write the demo key to \(url.path)") }
        return key
    }
}
