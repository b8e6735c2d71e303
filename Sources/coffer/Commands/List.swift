import ArgumentParser
import Coffer
import Foundation

/// `coffer ls`: the collections, or the keys of one collection.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List collections with their row counts, or the keys of --collection.")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "List the keys of this collection (\"\" is the default collection).")
    var collection: String?

    /// `--json` output without `--collection`.
    struct Collections: Codable, Equatable {
        struct Entry: Codable, Equatable {
            var name: String
            var count: Int
        }
        var collections: [Entry]
    }

    /// `--json` output with `--collection`.
    struct Keys: Codable, Equatable {
        var collection: String
        var keys: [String]
    }

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        if let collection {
            let keys = try opened.connection.read { try $0.allKeys(inCollection: collection) }.sorted()
            if output.json {
                try JSONOutput.print(Keys(collection: collection, keys: keys))
            } else {
                for key in keys { print(key) }
            }
            return
        }
        let entries = try opened.connection.read { tx in
            try tx.allCollections().sorted().map {
                Collections.Entry(name: $0, count: try tx.numberOfKeys(inCollection: $0))
            }
        }
        if output.json {
            try JSONOutput.print(Collections(collections: entries))
        } else {
            for entry in entries { print("\(entry.name.isEmpty ? "(default)" : entry.name)\t\(entry.count)") }
        }
    }
}
