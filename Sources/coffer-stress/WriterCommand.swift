import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress writer`: transfers between accounts forever, acknowledging each commit.
struct WriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writer",
        abstract: "Runs invariant-keeping transfers; prints the counter after each commit.")

    @Option(help: "The database file (created when missing).")
    var database: String

    @Option(help: "Seed of the transfer generator.")
    var seed: UInt64 = 1

    @Option(help: "Stop after this many transactions (0: run until killed).")
    var limit: Int = 0

    func run() throws {
        Acknowledge.start()
        var options = DatabaseOptions()
        options.key = .raw(try StressKeys.key(StressKeys.keyVariable))
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        LedgerSchema.register(db)
        let connection = try db.newConnection()
        try LedgerSchema.seedIfNeeded(connection)
        Acknowledge.line("ready")
        var rng = SplitMix64(seed: seed)
        var done = 0
        while limit == 0 || done < limit {
            let counter = try LedgerSchema.transfer(connection, using: &rng)
            Acknowledge.line("\(counter)")
            done += 1
        }
    }
}
