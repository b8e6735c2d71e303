import ArgumentParser
import Coffer
import Foundation

/// `coffer put`: stores one value.
struct Put: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store a value for a key, read from standard input or --file.",
        discussion: """
            The input is parsed as JSON and stored with Coffer's automatic JSON codec (keys sorted), \
            which is how collections without a registered codec store values. With --raw the bytes are \
            stored exactly as given. With --passphrase-stdin, the first line of standard input is the \
            passphrase and the rest is the value.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "The collection (default: the default collection \"\").")
    var collection = ""

    @Argument(help: "The key.")
    var key: String

    @Option(
        name: .long, help: ArgumentHelp("Read the value from this file instead of standard input.", valueName: "path"))
    var file: String?

    @Flag(name: .long, help: "Store the input bytes as they are instead of parsing them as JSON.")
    var raw = false

    @Option(name: .long, help: ArgumentHelp("JSON to store as the row's metadata.", valueName: "json"))
    var metadata: String?

    func run() throws {
        let input = LineReader.standardInput()
        let opened = try OpenedDatabase.open(location, keys: keys, input: input)
        let bytes = try file.map { try LineReader(url: URL(fileURLWithPath: $0)).readToEnd() } ?? input.readToEnd()
        let metadataValue = try metadata.map { try Self.parseJSON(Data($0.utf8), what: "--metadata") }
        let (key, collection) = (key, collection)
        if raw {
            try opened.connection.readWrite { tx in
                try tx.setObject(
                    bytes, forKey: key, inCollection: collection, withMetadata: metadataValue, serializedObject: bytes,
                    serializedMetadata: nil)
            }
        } else {
            let value = try Self.parseJSON(bytes, what: "the value")
            try opened.connection.readWrite { tx in
                try tx.setObject(value, forKey: key, inCollection: collection, withMetadata: metadataValue)
            }
        }
        try opened.finishWriting()
        if output.json {
            try JSONOutput.print(Result(collection: collection, key: key, bytes: bytes.count))
        } else {
            print("Stored key \"\(key)\" in collection \"\(collection)\" (\(bytes.count) bytes of input)")
        }
    }

    /// `--json` output: the row written and the size of its input.
    struct Result: Codable, Equatable {
        var collection: String
        var key: String
        var bytes: Int
    }

    /// Parses JSON text into a ``JSONValue``.
    /// - Throws: ``CLIError`` `.invalidInput` (without quoting the input).
    static func parseJSON(_ data: Data, what: String) throws -> JSONValue {
        guard RowLine.isValidJSON(data) else {
            throw CLIError(.invalidInput, "\(what) is not valid JSON (use --raw to store bytes as they are)")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CLIError(.invalidInput, "\(what) is not valid JSON (use --raw to store bytes as they are)")
        }
    }
}
