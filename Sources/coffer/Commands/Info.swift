import ArgumentParser
import Coffer
import Foundation

/// `coffer info`: what a database file is and holds.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a database's versions, cipher settings, collections, extensions and file sizes.")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions

    /// Everything `info` reports; also its `--json` form.
    struct Report: Codable, Equatable {
        struct Collection: Codable, Equatable {
            var name: String
            var count: Int
        }
        struct Cipher: Codable, Equatable {
            var pageSize: Int
            /// Nil: SQLCipher's default (only used for passphrase keys).
            var kdfIterations: Int?
            var hmac: Bool
        }
        struct Key: Codable, Equatable {
            var kind: String
            var path: String?
            var keyIdentifier: String?
            var slots: [String]?
        }
        struct Files: Codable, Equatable {
            var database: Int?
            var wal: Int?
            var shm: Int?
        }
        var path: String
        var sqlcipherVersion: String
        var sqliteVersion: String
        var cipher: Cipher
        var key: Key
        var snapshot: UInt64
        var autoVacuum: String
        var collections: [Collection]
        var rowCount: Int
        var extensions: [String]
        var files: Files
    }

    func run() throws {
        let input = LineReader.standardInput()
        let opened = try OpenedDatabase.open(location, keys: keys, input: input)
        let report = try makeReport(opened)
        if output.json {
            try JSONOutput.print(report)
        } else {
            printText(report)
        }
    }

    private func makeReport(_ opened: OpenedDatabase) throws -> Report {
        let database = opened.database
        let collections = try opened.connection.read { tx in
            try tx.allCollections().sorted().map {
                Report.Collection(name: $0, count: try tx.numberOfKeys(inCollection: $0))
            }
        }
        let cipher = database.options.cipher
        var key = Report.Key(kind: "none")
        if let url = keys.keyFileURL {
            let file = try KeyFile.read(from: url)
            key = Report.Key(kind: "keyFile", path: url.path, keyIdentifier: file.keyIdentifier, slots: file.slotLabels)
        } else if let raw = keys.rawKeyFile {
            key = Report.Key(kind: "rawKeyFile", path: raw)
        }
        return Report(
            path: database.url.path, sqlcipherVersion: database.cipherVersion, sqliteVersion: database.sqliteVersion,
            cipher: Report.Cipher(
                pageSize: database.pageSize, kdfIterations: cipher.kdfIterations, hmac: cipher.useHMAC ?? true),
            key: key, snapshot: database.snapshot, autoVacuum: try opened.connection.pragmaAutoVacuum(),
            collections: collections, rowCount: collections.reduce(0) { $0 + $1.count },
            extensions: database.previouslyRegisteredExtensionNames.sorted(),
            files: Report.Files(
                database: Self.size(of: database.url), wal: Self.size(of: database.walURL),
                shm: Self.size(of: database.shmURL)))
    }

    private func printText(_ report: Report) {
        print("Database:    \(report.path)")
        print("Library:     SQLCipher \(report.sqlcipherVersion) on SQLite \(report.sqliteVersion)")
        let kdf = report.cipher.kdfIterations.map { "\($0)" } ?? "default"
        print(
            "Cipher:      \(report.cipher.pageSize)-byte pages, HMAC \(report.cipher.hmac ? "on" : "off"), "
                + "KDF iterations \(kdf) (passphrase keys only)")
        switch report.key.kind {
        case "keyFile":
            print(
                "Key:         key file \(report.key.path ?? "") (key \(report.key.keyIdentifier ?? "?"), "
                    + "slots: \((report.key.slots ?? []).joined(separator: ", ")))")
        case "rawKeyFile": print("Key:         raw key file \(report.key.path ?? "")")
        default: print("Key:         none (unencrypted)")
        }
        print("Snapshot:    \(report.snapshot)")
        print("Auto-vacuum: \(report.autoVacuum)")
        print("Rows:        \(report.rowCount) in \(report.collections.count) collection(s)")
        for collection in report.collections {
            print("  \(collection.name.isEmpty ? "(default)" : collection.name)\t\(collection.count)")
        }
        print("Extensions:  \(report.extensions.isEmpty ? "none" : report.extensions.joined(separator: ", "))")
        let files = [("db", report.files.database), ("-wal", report.files.wal), ("-shm", report.files.shm)]
            .map { name, size in "\(name) \(size.map { "\($0) B" } ?? "absent")" }
        print("Files:       " + files.joined(separator: ", "))
    }

    /// The size of the file at `url` in bytes, or nil when it does not exist.
    static func size(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
    }
}
