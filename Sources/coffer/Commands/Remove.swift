import ArgumentParser
import Coffer
import Foundation

/// `coffer rm`: removes rows.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Remove keys from a collection, or every row of it with --all.")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "The collection (default: the default collection \"\").")
    var collection = ""

    @Flag(name: .long, help: "Remove every row of the collection.")
    var all = false

    @Argument(help: ArgumentHelp("The keys to remove.", valueName: "key"))
    var rowKeys: [String] = []

    func validate() throws {
        if all == !rowKeys.isEmpty { throw ValidationError("give the keys to remove, or --all") }
    }

    /// `--json` output.
    struct Result: Codable, Equatable {
        var collection: String
        var removed: Int
    }

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let (collection, all, rowKeys) = (collection, all, rowKeys)
        let removed = try opened.connection.readWrite { tx -> Int in
            if all {
                let count = try tx.numberOfKeys(inCollection: collection)
                try tx.removeAllObjects(inCollection: collection)
                return count
            }
            let present = try Set(rowKeys).filter { try tx.hasObject(forKey: $0, inCollection: collection) }
            try tx.removeObjects(forKeys: Array(present), inCollection: collection)
            return present.count
        }
        try opened.finishWriting()
        if output.json {
            try JSONOutput.print(Result(collection: collection, removed: removed))
        } else {
            print("Removed \(removed) row(s) from collection \"\(collection)\"")
        }
    }
}
