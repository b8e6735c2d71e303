import ArgumentParser
import Coffer
import Foundation

/// The `coffer` command-line tool: a thin layer over the Coffer library.
@main
struct CofferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Inspect and use Coffer encrypted databases.",
        discussion: ExitStatus.documentation + "\n\n" + JSONErrorReport.documentation,
        subcommands: [
            Demo.self, Create.self, Info.self, List.self, Get.self, Put.self, Remove.self, ExportJSON.self,
            ImportJSON.self, Verify.self, Backup.self, RotateKey.self, Passwd.self, Vacuum.self, Prefs.self,
        ]
    )

    /// Parses the arguments, runs the command, and hands every error to ``ErrorRenderer``.
    static func main() {
        OutputMode.configure(arguments: CommandLine.arguments.dropFirst())
        Interruption.shared.install()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            ErrorRenderer.exit(with: error)
        }
        waitForDatabasesToClose()
        StandardStreams.fflushStandardOutput()
        Foundation.exit(ExitStatus.success.rawValue)
    }

    /// Lets every database the command opened finish closing before the process exits.
    ///
    /// The command's database can close on one of Coffer's queues a moment after the command
    /// released it; exiting during that close left the write-ahead log beside the file and, now
    /// and then, crashed the exit (``Database/waitUntilAllClosed(timeout:)``).
    static func waitForDatabasesToClose() {
        // With --json, standard error holds nothing but a failure's report.
        if !Database.waitUntilAllClosed(timeout: .seconds(30)) && !OutputMode.isJSON {
            StandardStreams.writeError("coffer: warning: the database did not finish closing within 30 s\n")
        }
    }
}
