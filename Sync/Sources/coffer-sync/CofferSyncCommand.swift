import ArgumentParser
import CofferSync
import Foundation

/// `coffer-sync`: sets up the PostgreSQL side of CofferSync and manages spaces and devices.
@main
struct CofferSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer-sync",
        abstract: "Set up and manage end-to-end-encrypted sync through PostgreSQL.",
        subcommands: [
            InitServerCommand.self, CreateSpaceCommand.self, SpacesCommand.self, RevokeCommand.self,
            DropSpaceCommand.self, DemoCommand.self, DeviceRunCommand.self,
        ]
    )

    /// Runs the subcommand, printing a `SyncError` as its sentence rather than its case.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as SyncError {
            FileHandle.standardError.write(Data("coffer-sync: \(error.localizedDescription)\n".utf8))
            Self.exit(withError: ExitCode.failure)
        } catch {
            Self.exit(withError: error)
        }
    }
}
