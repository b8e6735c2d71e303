import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress attachments`: notes that own files through a Relationship, saved and removed
/// forever, so a kill can land between a removal's commit and the deletion of its files.
struct AttachmentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachments",
        abstract: "Saves a note owning files, then removes it; acknowledges each commit.",
        discussion: """
            Note i of a run is the row "<run>-<i>" in collection "notes"; its files are \
            "<run>-<i>-<j>" in the files directory, created before the note is saved. Prints \
            "saved <i>" and "removed <i>" after each commit.
            """)

    /// The collection of the notes.
    static let collection = "notes"
    /// The Relationship's registered name.
    static let extensionName = "attachments"

    @Option(help: "The database file (created when missing).")
    var database: String

    @Option(help: "The directory of the notes' files.")
    var files: String

    @Option(name: .customLong("run"), help: "A name for this run, unique among the runs on this database.")
    var runName: String

    @Option(help: "Files per note (more files make the deletion after each removal take longer).")
    var filesPerNote: Int = 32

    func run() throws {
        Acknowledge.start()
        var options = DatabaseOptions()
        options.key = .raw(try StressKeys.key(StressKeys.keyVariable))
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        // Registering finishes the deletions an earlier run's crash interrupted.
        try db.register(Relationship(), withName: Self.extensionName)
        let connection = try db.newConnection()
        Acknowledge.line("ready")
        let directory = URL(fileURLWithPath: files)
        var index = 0
        while true {
            let key = "\(runName)-\(index)"
            let source = CollectionKey(collection: Self.collection, key: key)
            var owned: [URL] = []
            for file in 0..<filesPerNote {
                let url = directory.appendingPathComponent("\(key)-\(file)")
                try Data(key.utf8).write(to: url)
                owned.append(url)
            }
            try connection.readWrite { tx in
                try tx.setObject("note \(index)", forKey: key, inCollection: Self.collection)
                let edges = try tx.extension(Self.extensionName, as: RelationshipTransaction.self)
                for url in owned {
                    try edges.addEdge(
                        RelationshipEdge(
                            name: "attachment", source: source, destination: .file(url),
                            rules: .deleteDestinationIfSourceDeleted))
                }
            }
            Acknowledge.line("saved \(index)")
            try connection.readWrite { tx in try tx.removeObject(forKey: key, inCollection: Self.collection) }
            Acknowledge.line("removed \(index)")
            index += 1
        }
    }
}
