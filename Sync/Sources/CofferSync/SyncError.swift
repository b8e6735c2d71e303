public import Foundation

/// What went wrong while syncing: one case per failure a caller may want to handle.
///
/// Messages name the server, the space or the row id (hex), never a key, a passphrase, a row's
/// collection or key, or its contents. Failures of the local database stay Coffer's
/// `DatabaseError`.
public enum SyncError: Error, Sendable, Hashable {
    /// The server could not be reached (connection refused, timed out, closed).
    case serverUnreachable(server: String, reason: String)
    /// The server refused the device's role or password. `reason` keeps the server's cause
    /// (its SQLSTATE and message, or the client's authentication failure), never a password.
    case authenticationFailed(server: String, reason: String)
    /// The device's role was revoked: it may no longer log in to its space.
    case deviceRevoked(server: String)
    /// The server's schema is missing or at another version than this package speaks.
    case schemaVersionMismatch(expected: Int, found: Int?)
    /// The space does not exist on the server, or the device's role does not belong to it.
    case spaceNotFound(space: UUID)
    /// The device's sync key does not open the space (another space's key, or an old epoch's
    /// key after a rotation this device cannot open): nothing was written.
    case syncKeyMismatch(space: UUID, epoch: Int)
    /// The space moved to another key epoch (a rotation) since this device read it: nothing was
    /// written. The device opens the new epoch's sealed key and pulls again from cursor 0.
    case keyEpochChanged(space: UUID, expected: Int, current: Int)
    /// The space gained rows since this device read it through sequence number `pulledThrough`
    /// (another device pushed meanwhile): a rotation refused to replace rows it had not seen,
    /// and nothing changed. The device pulls again and retries.
    case spaceChanged(space: UUID, pulledThrough: Int64, current: Int64)
    /// A row from the server failed authentication or does not match where it was stored.
    case tampered(rowID: String, reason: String)
    /// An authentic row whose values do not decode as its collection's declared types (a device
    /// with other types, for example another version of the app): reported, not applied.
    case undecodableRow(rowID: String)
    /// The local database failed while syncing (Coffer's `DatabaseError` code); retried.
    case localDatabase(code: String)
    /// The server served a version of a row older than one this device already holds.
    case rollbackDetected(rowID: String, held: Int64, served: Int64)
    /// An enrollment file or code could not be opened (wrong passphrase, damaged, other format).
    case enrollmentInvalid(reason: String)
    /// The server answered with an error this package does not map to a case above.
    case server(code: String, message: String)
    /// The engine was used wrongly (not started, already stopped, a collection not declared).
    case misuse(String)
}

extension SyncError: LocalizedError {
    /// A sentence naming what failed and where.
    public var errorDescription: String? {
        switch self {
        case .serverUnreachable(let server, let reason): "cannot reach the sync server \(server): \(reason)"
        case .authenticationFailed(let server, let reason):
            "the sync server \(server) refused this device's credentials (\(reason))"
        case .deviceRevoked(let server): "this device was revoked; \(server) no longer lets it log in"
        case .schemaVersionMismatch(let expected, let found):
            "the sync server's schema is version \(found.map(String.init) ?? "missing"), this client speaks \(expected)"
        case .spaceNotFound(let space): "sync space \(space.uuidString) does not exist or is not this device's"
        case .syncKeyMismatch(let space, let epoch):
            "the sync key does not open space \(space.uuidString) at key epoch \(epoch); nothing was written"
        case .keyEpochChanged(let space, let expected, let current):
            "sync space \(space.uuidString) is at key epoch \(current), not \(expected); nothing was written"
        case .spaceChanged(let space, let pulledThrough, let current):
            "sync space \(space.uuidString) moved to sequence \(current) after this device read it through \(pulledThrough); nothing was changed"
        case .tampered(let rowID, let reason): "row \(rowID) from the server was rejected: \(reason)"
        case .undecodableRow(let rowID):
            "row \(rowID) from the server does not decode as its collection's declared types; not applied"
        case .localDatabase(let code): "the local database failed while syncing (\(code))"
        case .rollbackDetected(let rowID, let held, let served):
            "the server served version \(served) of row \(rowID), older than version \(held) this device holds"
        case .enrollmentInvalid(let reason): "the enrollment could not be opened: \(reason)"
        case .server(let code, let message): "the sync server failed (\(code)): \(message)"
        case .misuse(let message): message
        }
    }
}
