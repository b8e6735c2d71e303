import ArgumentParser

/// The `coffer` command-line tool: a thin layer over the Coffer library.
@main
struct CofferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Inspect and use Coffer encrypted databases.",
        subcommands: [Demo.self]
    )
}
