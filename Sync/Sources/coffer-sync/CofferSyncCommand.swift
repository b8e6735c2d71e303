import ArgumentParser

/// `coffer-sync`: sets up the PostgreSQL side of CofferSync and manages spaces and devices.
@main
struct CofferSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer-sync",
        abstract: "Set up and manage end-to-end-encrypted sync through PostgreSQL.",
        subcommands: []
    )
}
