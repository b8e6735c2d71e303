import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs a statement and reads its whole answer, so that an error the server raises while
    /// producing rows (a function's RAISE, say) reaches the caller rather than being dropped
    /// with rows nobody reads.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}
