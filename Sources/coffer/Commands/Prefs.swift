import ArgumentParser
import Coffer
import Foundation

/// `coffer prefs`: reads and writes a `Preferences` suite (Coffer's encrypted `UserDefaults`).
struct Prefs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read and write a Preferences suite.",
        subcommands: [PrefsList.self, PrefsGet.self, PrefsSet.self])

    /// Turns a stored preference into something JSON can carry (dates as ISO 8601, data as base64).
    static func jsonCompatible(_ value: Any) -> Any {
        switch value {
        case let data as Data: return data.base64EncodedString()
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let url as URL: return url.absoluteString
        case let array as [Any]: return array.map(jsonCompatible)
        case let dictionary as [String: Any]: return dictionary.mapValues(jsonCompatible)
        default: return value
        }
    }

    /// One value as JSON text (fragments allowed).
    static func jsonText(_ value: Any) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: jsonCompatible(value), options: [.fragmentsAllowed, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

/// The options every `prefs` subcommand shares.
struct SuiteOption: ParsableArguments {
    @Option(name: .long, help: "The Preferences suite (default: \"default\").")
    var suite = "default"
}

/// `coffer prefs ls`.
struct PrefsList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List a suite's keys and values.")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var suite: SuiteOption

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let values = try Preferences(database: opened.database, suite: suite.suite).dictionaryRepresentation()
        if output.json {
            print(try Prefs.jsonText(values))
            return
        }
        for key in values.keys.sorted() {
            print("\(key) = \((try? Prefs.jsonText(values[key] ?? NSNull())) ?? "?")")
        }
    }
}

/// `coffer prefs get KEY`.
struct PrefsGet: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one preference as JSON.")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var suite: SuiteOption
    @OptionGroup var output: OutputOptions

    @Argument(help: "The preference key.")
    var key: String

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let preferences = try Preferences(database: opened.database, suite: suite.suite)
        guard let value = preferences.object(forKey: key) else {
            throw CLIError(.notFound, "no preference \"\(key)\" in suite \"\(suite.suite)\"")
        }
        // With --json the value is wrapped, so the document is an object whatever the value is.
        let document: Any = output.json ? ["suite": suite.suite, "key": key, "value": value] : value
        print(try Prefs.jsonText(document))
    }
}

/// `coffer prefs set KEY JSON`.
struct PrefsSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Store one preference given as JSON (a number, string, bool, array or object).")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var suite: SuiteOption
    @OptionGroup var output: OutputOptions

    @Argument(help: "The preference key.")
    var key: String

    @Argument(help: "The value as JSON, e.g. 42, \"dark\", true, [1,2] or {\"a\":1}.")
    var json: String

    func run() throws {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        } catch {
            throw CLIError(.invalidInput, "the value is not valid JSON")
        }
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let preferences = try Preferences(database: opened.database, suite: suite.suite)
        try preferences.set(value is NSNull ? nil : value, forKey: key)
        try preferences.flush()
        try opened.finishWriting()
        if output.json {
            print(try Prefs.jsonText(["suite": suite.suite, "key": key]))
        } else {
            print("Set \"\(key)\" in suite \"\(suite.suite)\"")
        }
    }
}
