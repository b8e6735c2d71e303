import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress rotate`: alternates batches of writes with data-key rotations.
///
/// Each round appends `batch` rows `r<n>` (value n) and bumps the counter row to the row count in
/// the same transaction, acknowledges "rows <count>", then rotates to the other key and
/// acknowledges "rotated <round>". The keys swap every round, so a restart finds the file under
/// either key: the child opens with both as candidates, as an application must during rotation.
struct RotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Writes rows and rotates the data key back and forth until killed.")

    @Option(help: "The database file (created when missing).")
    var database: String

    @Option(help: "Rows written between rotations.")
    var batch: Int = 20

    @Option(help: "Stop after this many rotations (0: run until killed).")
    var limit: Int = 0

    func run() throws {
        Acknowledge.start()
        let first = try StressKeys.key(StressKeys.keyVariable)
        let second = try StressKeys.key(StressKeys.newKeyVariable)
        var options = DatabaseOptions()
        options.key = .candidates { [.raw(second), .raw(first)] }
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        db.registerCodable(Int64.self, forCollection: Self.rows)
        let connection = try db.newConnection()
        Acknowledge.line("ready")
        var round = 0
        // The child does not know which key the file is under; rotating to either is correct.
        var next = second
        while limit == 0 || round < limit {
            let count = try connection.readWrite { tx in
                let start = try tx.object(forKey: Self.counterKey, inCollection: Self.rows, as: Int64.self) ?? 0
                for n in start..<(start + Int64(batch)) {
                    try tx.setObject(n, forKey: "r\(n)", inCollection: Self.rows)
                }
                try tx.setObject(start + Int64(batch), forKey: Self.counterKey, inCollection: Self.rows)
                return start + Int64(batch)
            }
            Acknowledge.line("rows \(count)")
            try db.rotateKey(to: .raw(next))
            round += 1
            Acknowledge.line("rotated \(round)")
            next = next == second ? first : second
        }
    }

    /// The collection the rows and their counter live in.
    static let rows = "rows"
    /// The counter row: the number of `r<n>` rows committed with it.
    static let counterKey = "count"
}
