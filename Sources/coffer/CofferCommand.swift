import ArgumentParser
import Foundation

/// The `coffer` command-line tool: a thin layer over the Coffer library.
@main
struct CofferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Inspect and use Coffer encrypted databases.",
        discussion: ExitStatus.documentation,
        subcommands: [
            Demo.self, Create.self, Info.self, List.self, Get.self, Put.self, Remove.self, ExportJSON.self,
            ImportJSON.self, Verify.self, Backup.self, RotateKey.self, Passwd.self, Vacuum.self, Prefs.self,
        ]
    )

    /// Parses the arguments, runs the command, and hands every error to ``ErrorRenderer``.
    static func main() {
        Interruption.shared.install()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            ErrorRenderer.exit(with: error)
        }
        StandardStreams.fflushStandardOutput()
        Foundation.exit(ExitStatus.success.rawValue)
    }
}
