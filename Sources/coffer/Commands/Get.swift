import ArgumentParser
import Coffer
import Foundation

/// `coffer get`: prints one row's value.
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the value (or metadata) stored for a key.",
        discussion: """
            Values of collections without a registered codec are stored as JSON and printed as they \
            are stored; values in Coffer's binary Codable format are printed as the JSON JSONEncoder \
            would have written for them. Values an application stored in another form (compressed or \
            encrypted by its serializer, or its own bytes) are not JSON: write their bytes with --raw, \
            or use --json, which shows them in base64.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "The collection (default: the default collection \"\").")
    var collection = ""

    @Argument(help: "The key.")
    var key: String

    @Flag(name: .long, help: "Print the metadata instead of the value.")
    var metadata = false

    @Flag(name: .long, help: "Write the stored bytes to standard output as they are.")
    var raw = false

    func validate() throws {
        if raw && output.json { throw ValidationError("--raw and --json cannot be used together") }
    }

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let row = try opened.connection.read {
            try $0.serializedObjectAndMetadata(forKey: key, inCollection: collection)
        }
        guard let row else {
            throw CLIError(.notFound, "no row for key \"\(key)\" in collection \"\(collection)\"")
        }
        if output.json {
            let line = RowLine(
                collection: collection, key: key, object: StoredValue.readable(row.object),
                metadata: StoredValue.readable(row.metadata))
            StandardStreams.writeOutput(String(decoding: line.encoded(), as: UTF8.self) + "\n")
            return
        }
        guard let bytes = metadata ? row.metadata : row.object else {
            throw CLIError(.notFound, "the row for key \"\(key)\" in collection \"\(collection)\" has no metadata")
        }
        if raw {
            let out = OutputFile.standardOutput()
            try out.write(bytes)
            try out.commit()
            return
        }
        let shown = StoredValue.readable(bytes)
        guard RowLine.isJSONText(shown) else {
            throw CLIError(
                .invalidInput,
                "the stored \(metadata ? "metadata" : "value") (\(bytes.count) bytes) is not JSON; use --raw or --json")
        }
        StandardStreams.writeOutput(String(decoding: shown, as: UTF8.self) + "\n")
    }
}
