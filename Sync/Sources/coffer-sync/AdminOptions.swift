import ArgumentParser
import CofferSync
import Foundation

/// How every admin subcommand finds the server and the admin role's password.
struct AdminOptions: ParsableArguments {
    @Option(
        name: .customLong("admin-url"),
        help: ArgumentHelp(
            "postgres://role@host:port/database of the role owning the schema (default: $COFFER_SYNC_ADMIN_URL).",
            valueName: "url"
        )
    )
    var adminURL: String?

    @Flag(
        name: .customLong("password-stdin"),
        help: "Read the admin role's password from the first line of standard input."
    )
    var passwordFromStdin = false

    /// The admin address: the URL from the flag or the environment, and the password from
    /// stdin, $COFFER_SYNC_ADMIN_PASSWORD, or the URL (a flag would show it in `ps`).
    func address() throws -> SyncServerAddress {
        let environment = ProcessInfo.processInfo.environment
        guard let url = adminURL ?? environment["COFFER_SYNC_ADMIN_URL"] else {
            throw ValidationError("give --admin-url postgres://role@host:port/database or set COFFER_SYNC_ADMIN_URL")
        }
        var password = environment["COFFER_SYNC_ADMIN_PASSWORD"]
        if passwordFromStdin {
            guard let line = readLine(strippingNewline: true) else {
                throw ValidationError("--password-stdin: standard input was empty")
            }
            password = line
        }
        return try SyncServerAddress(url: url, password: password)
    }
}
