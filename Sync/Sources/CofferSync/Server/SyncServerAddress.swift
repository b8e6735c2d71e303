import Foundation

/// Where a device or an admin reaches the sync server, and as whom.
///
/// The password never appears in `description`, `debugDescription` or a mirror (so neither in
/// `print`, string interpolation, `dump` nor logs); it is still part of the Codable form, which
/// belongs in the device's encrypted database only.
public struct SyncServerAddress: Sendable, Hashable, Codable {
    /// The server's host name or IP address.
    public var host: String
    /// The server's TCP port (PostgreSQL's default is 5432).
    public var port: Int
    /// The database holding the `coffer_sync` schema.
    public var database: String
    /// The PostgreSQL role to log in as: a device's own role, or the admin role.
    public var username: String
    /// The role's password.
    public var password: String
    /// Whether to require TLS, verifying the server's certificate against the system's roots.
    public var tls: Bool

    /// Describes a server and the role to log in as.
    public init(
        host: String,
        port: Int = 5432,
        database: String,
        username: String,
        password: String,
        tls: Bool = false
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.tls = tls
    }

    /// Reads a `postgres://user:password@host:port/database?sslmode=require` URL.
    ///
    /// The password may be left out of the URL and given as `password` (so that it need not
    /// appear on a command line); percent-escapes in the URL are decoded. `sslmode=require`
    /// (or `verify-full`) turns TLS on; no `sslmode`, `disable` or `prefer` leave it off.
    public init(url: String, password: String? = nil) throws(SyncError) {
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw .misuse("a sync server URL looks like postgres://user@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .misuse("the sync server URL names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw .misuse("the sync server URL names no user (postgres://user@\(host)/…)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw .misuse("the sync server URL names no database (postgres://…@\(host)/database)")
        }
        let sslmode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value
        self.init(
            host: host,
            port: components.port ?? 5432,
            database: database,
            username: user,
            password: password ?? components.password ?? "",
            tls: sslmode == "require" || sslmode == "verify-full" || sslmode == "verify-ca"
        )
    }

    /// `host:port`, the form error messages use to name the server.
    public var server: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension SyncServerAddress: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `user@host:port/database`, without the password.
    public var description: String { "\(username)@\(server)/\(database)\(tls ? " (TLS)" : "")" }

    /// The same as `description`: the password stays out of debug output too.
    public var debugDescription: String { "SyncServerAddress(\(description))" }

    /// A mirror without the password, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "database": database, "username": username, "tls": tls,
            ]
        )
    }
}
