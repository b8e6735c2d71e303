import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Opens one PostgreSQL connection for an address, with errors already mapped to `SyncError`.
enum ServerConnector {
    /// Numbers connections for postgres-nio's log metadata.
    private static let nextID = Atomic<Int>(0)

    /// How long a connection attempt may take before the server counts as unreachable.
    static let connectTimeout: TimeAmount = .seconds(10)

    /// Connects and authenticates as `address.username`.
    static func open(_ address: SyncServerAddress, logger: Logger) async throws -> PostgresConnection {
        let errors = ServerErrors(server: address.server, space: nil)
        do {
            let tls: PostgresConnection.Configuration.TLS
            if address.tls {
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            } else {
                tls = .disable
            }
            var configuration = PostgresConnection.Configuration(
                host: address.host,
                port: address.port,
                username: address.username,
                password: address.password,
                database: address.database,
                tls: tls
            )
            configuration.options.connectTimeout = connectTimeout
            return try await PostgresConnection.connect(
                configuration: configuration,
                id: nextID.add(1, ordering: .relaxed).newValue,
                logger: driverLogger(logger)
            )
        } catch {
            throw errors.map(error)
        }
    }

    /// The logger handed to postgres-nio: the caller's, but never below `.info`, because
    /// postgres-nio traces every backend message (row contents, ciphertext) at `.trace`.
    static func driverLogger(_ logger: Logger) -> Logger {
        var driver = Logger(label: logger.label, factory: { _ in LevelFloorLogHandler(base: logger.handler) })
        driver.logLevel = max(logger.logLevel, .info)
        return driver
    }
}

/// Forwards to another handler, with its own log level, so that raising the driver's level
/// does not change the caller's handler (which may be a shared reference).
private struct LevelFloorLogHandler: LogHandler {
    var base: any LogHandler
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        base.log(event: event)
    }
}
