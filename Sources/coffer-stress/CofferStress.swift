import ArgumentParser
import CofferToolSupport

/// A child process for the crash-consistency tests: it writes to a database until it is killed.
///
/// Every mode reads the raw key from the environment (never argv, which other users can read in
/// the process list) and writes one "acknowledged" line on standard output, unbuffered, after
/// each operation has returned. The parent kills the process with SIGKILL at a random moment and
/// checks that everything acknowledged survived and that nothing is torn.
@main
struct CofferStress: ParsableCommand {
    /// Runs the stress command; one that ends lets its database finish closing before exiting.
    static func main() { mainWaitingForDatabasesToClose() }

    static let configuration = CommandConfiguration(
        commandName: "coffer-stress",
        abstract: "Writes to a Coffer database until killed (crash-consistency child).",
        discussion: """
            Keys come from the environment as 64 hex digits: \(StressKeys.keyVariable) \
            (and \(StressKeys.newKeyVariable) for `rotate`).
            """,
        subcommands: [
            WriterCommand.self, RotateCommand.self, BackupCommand.self, AttachmentsCommand.self, CounterCommand.self,
            CloudQueueCommand.self, PreferenceCommand.self,
        ]
    )
}
