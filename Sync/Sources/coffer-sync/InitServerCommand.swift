import ArgumentParser
import CofferSync

/// `coffer-sync init-server`: applies the shipped schema and reports its version.
struct InitServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init-server",
        abstract: "Apply the coffer_sync schema to a PostgreSQL database (safe to repeat).",
        discussion: """
            The admin role becomes the schema's owner: it needs CREATEROLE (to create device \
            roles) and CREATE on the database. A schema of another version is left untouched.
            """
    )

    @OptionGroup var admin: AdminOptions

    func run() async throws {
        let address = try admin.address()
        let version = try await SyncServerAdmin(address: address).initServer()
        print("coffer_sync schema version \(version) is in place on \(address)")
    }
}
