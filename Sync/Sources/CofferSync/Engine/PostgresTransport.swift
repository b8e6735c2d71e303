import Foundation

/// The engine's transport over postgres-nio (the `Server/` client).
enum PostgresTransport {
    static let connect: SyncTransportFactory = { _ in
        throw SyncError.misuse("the PostgreSQL transport is not built yet")
    }
}
