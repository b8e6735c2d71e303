import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress preference`: sets one string preference through ``Preferences`` with
/// multi-process support on, then closes: another process's Preferences must pick it up.
struct PreferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preference",
        abstract: "Sets a string preference in a suite, flushes it, prints \"done\" and closes.")

    @Option(help: "The database file (created when missing).")
    var database: String

    @Option(help: "The Preferences suite.")
    var suite: String = "default"

    @Option(help: "The preference's key.")
    var key: String

    @Option(help: "The string to store.")
    var value: String

    func run() throws {
        Acknowledge.start()
        var options = DatabaseOptions()
        options.key = .raw(try StressKeys.key(StressKeys.keyVariable))
        options.multiProcessSupport = true
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        let preferences = try Preferences(database: db, suite: suite)
        preferences.set(value, forKey: key)
        try preferences.flush()
        Acknowledge.line("done")
    }
}
