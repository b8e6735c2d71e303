import ArgumentParser
import Coffer
import Foundation

/// `coffer vacuum`: rebuilds the file to give free pages back.
struct Vacuum: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rebuild the database file to reclaim free space (it stays encrypted with the same key).")

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let opened = try OpenedDatabase.open(location, keys: keys, input: LineReader.standardInput())
        let before = Info.size(of: opened.database.url) ?? 0
        // Until the vacuum returns, Ctrl-C ends the process and SQLite rolls the vacuum back.
        try opened.connection.vacuum()
        try Interruption.shared.commit("the database is vacuumed")
        let after = Info.size(of: opened.database.url) ?? 0
        if output.json {
            try JSONOutput.print(Result(database: opened.database.url.path, bytesBefore: before, bytesAfter: after))
        } else {
            print("Vacuumed \(opened.database.url.path): \(before) → \(after) bytes")
        }
    }

    /// `--json` output: the file's size before and after.
    struct Result: Codable, Equatable {
        var database: String
        var bytesBefore: Int
        var bytesAfter: Int
    }
}
