import Foundation
import PostgresNIO

/// Turns what postgres-nio and the server throw into `SyncError`, naming the server and never
/// echoing a password, a bind value or a row.
struct ServerErrors {
    /// `host:port` of the server the failing operation talked to.
    let server: String
    /// The space the caller works in, for `.spaceNotFound`; nil for admin operations.
    let space: UUID?

    /// The SyncError for `error`; cancellation stays `CancellationError`.
    func map(_ error: any Error) -> any Error {
        switch error {
        case let error as SyncError: return error
        case let error as CancellationError: return error
        case let error as PostgresTransactionError:
            let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError
            return inner.map(map) ?? SyncError.server(code: "transaction", message: "the transaction failed")
        case let error as PSQLError: return map(error)
        case is PostgresDecodingError:
            // Its cell bytes could be a row's ciphertext: say only what went wrong.
            return SyncError.server(code: "decoding", message: "\(server) answered with unexpected column types")
        default: return SyncError.serverUnreachable(server: server, reason: "\(error)")
        }
    }

    private func map(_ error: PSQLError) -> any Error {
        switch error.code {
        case .server:
            return mapServer(
                state: error.serverInfo?[.sqlState] ?? "",
                message: error.serverInfo?[.message] ?? "",
                detail: error.serverInfo?[.detail],
                routine: error.serverInfo?[.routine]
            )
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown,
            .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest,
            .messageDecodingFailure, .unexpectedBackendMessage:
            let reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
            return SyncError.serverUnreachable(server: server, reason: reason)
        case .saslError, .unsupportedAuthMechanism, .authMechanismRequiresPassword:
            // The client's side of the login failed: keep what failed (never the password, which
            // these errors do not hold), so that a refusal through a pooler is explainable.
            let cause = error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
            return SyncError.authenticationFailed(server: server, reason: cause)
        case .queryCancelled:
            return CancellationError()
        default:
            return SyncError.server(code: "\(error.code)", message: "the client failed talking to \(server)")
        }
    }

    /// Maps an ErrorResponse by its SQLSTATE, never by its message, which follows the server's
    /// `lc_messages` (the CS class is raised by schema/coffer-sync.sql).
    ///
    /// `routine` is the PostgreSQL function that raised it (the ErrorResponse's `R` field, a C
    /// identifier that is never translated): it tells a NOLOGIN role, which is how a revoked
    /// device's login fails, from the other causes SQLSTATE 28000 shares (a `pg_hba.conf`
    /// refusal, raised by `ClientAuthentication`).
    func mapServer(state: String, message: String, detail: String?, routine: String? = nil) -> SyncError {
        let cause = "SQLSTATE \(state): \(message)"
        switch state {
        case "28P01": return .authenticationFailed(server: server, reason: cause)
        case "28000":
            return routine == Self.loginCheckRoutine
                ? .deviceRevoked(server: server) : .authenticationFailed(server: server, reason: cause)
        case "3D000", "3F000", "42P01", "42883":
            // No such database, schema, table or function: nothing of this package's is there.
            return .schemaVersionMismatch(expected: ServerSchema.version, found: nil)
        case "CS001": return .schemaVersionMismatch(expected: ServerSchema.version, found: detail.flatMap { Int($0) })
        case "CS002":
            guard let space else { return .server(code: state, message: "\(message) (\(server))") }
            return .spaceNotFound(space: space)
        case "CS003", "CS004": return .misuse(message)
        case "42501":
            // A device's grants cover every statement it sends, so a refusal means the role is
            // no (longer a) device of a space.
            guard let space else { return .server(code: state, message: "\(message) (\(server))") }
            return .spaceNotFound(space: space)
        case "57P01", "57P02", "57P03", "53300", "08006", "08001", "08004":
            return .serverUnreachable(server: server, reason: cause)
        default: return .server(code: state, message: "\(message) (\(server))")
        }
    }

    /// The PostgreSQL routine that refuses a login to a role without LOGIN (and to a role that
    /// no longer exists, which for a device is revocation too: `drop-space` drops its roles).
    static let loginCheckRoutine = "InitializeSessionUserId"

    /// SQLSTATEs after which a transaction rolled back whole and may simply run again: a
    /// deadlock (40P01, PostgreSQL chose this side to fail) and a serialization failure (40001).
    static let transientStates: Set<String> = ["40P01", "40001"]

    /// The SQLSTATE of a server error, looking inside a failed transaction; nil for other errors.
    static func sqlState(of error: any Error) -> String? {
        switch error {
        case let error as PSQLError:
            guard error.code == .server else { return nil }
            return error.serverInfo?[.sqlState]
        case let error as PostgresTransactionError:
            let inner = error.closureError ?? error.commitError ?? error.beginError
            return inner.flatMap(sqlState(of:))
        default: return nil
        }
    }

    /// Whether `error` failed a transaction that may run again unchanged (see `transientStates`).
    static func isTransient(_ error: any Error) -> Bool {
        // A rollback that failed leaves the connection unusable: nothing to run again on.
        if let error = error as? PostgresTransactionError, error.rollbackError != nil { return false }
        return sqlState(of: error).map(transientStates.contains) ?? false
    }
}
