import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// Runs a statement and returns its whole answer, collected by the connection's event loop.
    ///
    /// Every statement of this package goes through here (or ``run(_:logger:)``) rather than
    /// postgres-nio's async row sequence: with that sequence, a server closing the connection
    /// while rows wait for their consumer (a restart in the middle of a pull) stops the whole
    /// process in postgres-nio 1.33's row-stream state machine (a precondition failure).
    /// Collected on the event loop, rows are asked for as they arrive and the close fails the
    /// call instead.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await rows(query, logger: logger) { $0 }
    }

    /// Runs a statement and returns its rows, each made into a value by `transform` on the event
    /// loop as it arrives (so that decoding overlaps the reading of the rest), as ``rows(_:logger:)``.
    func rows<Value: Sendable>(
        _ query: PostgresQuery, logger: Logger, as transform: @escaping @Sendable (PostgresRow) throws -> Value
    ) async throws -> [Value] {
        let values = NIOLockedValueBox<[Value]>([])
        let answer: EventLoopFuture<PostgresQueryMetadata> = self.query(query, logger: logger) { row in
            let value = try transform(row)
            values.withLockedValue { $0.append(value) }
        }
        _ = try await answer.get()
        return values.withLockedValue { $0 }
    }

    /// Runs a statement and reads its whole answer, so that an error the server raises while
    /// producing rows (a function's RAISE, say) reaches the caller rather than being dropped
    /// with rows nobody reads.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        _ = try await rows(query, logger: logger)
    }
}
