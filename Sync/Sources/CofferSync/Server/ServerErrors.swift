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
                detail: error.serverInfo?[.detail]
            )
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown,
            .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest,
            .messageDecodingFailure, .unexpectedBackendMessage:
            let reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
            return SyncError.serverUnreachable(server: server, reason: reason)
        case .saslError, .unsupportedAuthMechanism, .authMechanismRequiresPassword:
            return SyncError.authenticationFailed(server: server)
        case .queryCancelled:
            return CancellationError()
        default:
            return SyncError.server(code: "\(error.code)", message: "the client failed talking to \(server)")
        }
    }

    /// Maps an ErrorResponse by its SQLSTATE (the CS class is raised by schema/coffer-sync.sql).
    func mapServer(state: String, message: String, detail: String?) -> SyncError {
        switch state {
        case "28P01": return .authenticationFailed(server: server)
        case "28000":
            // A NOLOGIN role that gave the right password: how revocation shows at login.
            return message.contains("not permitted to log in")
                ? .deviceRevoked(server: server) : .authenticationFailed(server: server)
        case "3F000", "42P01", "42883": return .schemaVersionMismatch(expected: ServerSchema.version, found: nil)
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
            return .serverUnreachable(server: server, reason: message)
        default: return .server(code: state, message: "\(message) (\(server))")
        }
    }
}
