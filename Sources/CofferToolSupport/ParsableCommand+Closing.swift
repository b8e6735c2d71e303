public import ArgumentParser
import Coffer

extension ParsableCommand {
    /// Parses the arguments and runs the command like ArgumentParser's `main()`, then lets every
    /// database finish closing before the process exits, whether the command succeeded or threw.
    ///
    /// A database released by the command can still be closing on one of Coffer's queues;
    /// exiting under it loses its final checkpoint and can crash the exit
    /// (`Database.waitUntilAllClosed(timeout:)`).
    public static func mainWaitingForDatabasesToClose() {
        let outcome = Result {
            var command = try parseAsRoot()
            try command.run()
        }
        _ = Database.waitUntilAllClosed()
        if case .failure(let error) = outcome { exit(withError: error) }
    }
}
