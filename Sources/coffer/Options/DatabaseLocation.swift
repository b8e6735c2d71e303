import ArgumentParser
import Coffer
import Foundation

/// `--database PATH`: which database file a command works on.
struct DatabaseLocation: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The database file (default: Coffer's default location).", valueName: "path"))
    var database: String?

    /// The database file.
    var url: URL {
        database.map { URL(fileURLWithPath: $0) } ?? Database.defaultDatabaseURL
    }
}
