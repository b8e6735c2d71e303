public import Logging
import PostgresNIO

/// Wakes a puller when its space changes: LISTENs on the space's channel over a dedicated
/// connection and yields a wake-up (no payload) per notification.
///
/// Notifications carry nothing (PostgreSQL does not restrict LISTEN), so a wake-up only says
/// "pull now". One also comes as soon as the listener listens, and again after every
/// reconnection, because notifications sent while it was disconnected are lost. When the
/// server goes away it reconnects with exponential backoff; it stops when the stream's consumer
/// stops iterating (or its task is cancelled).
public struct SyncServerListener: Sendable {
    /// The server and role to listen as (a device's own role).
    public let address: SyncServerAddress
    /// The channel to listen on (`SpaceInfo.channel`).
    public let channel: String
    /// The longest wait between two connection attempts.
    public let maximumBackoff: Duration
    private let logger: Logger

    /// Describes a listener; nothing connects until `wakeUps()` is iterated.
    public init(
        address: SyncServerAddress,
        channel: String,
        maximumBackoff: Duration = .seconds(5),
        logger: Logger = Logger(label: "coffer.sync.listener")
    ) {
        self.address = address
        self.channel = channel
        self.maximumBackoff = maximumBackoff
        self.logger = logger
    }

    /// The wake-ups, coalesced: a consumer that falls behind sees one pending wake-up, not many.
    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            await run(continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ continuation: AsyncStream<Void>.Continuation) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await ServerConnector.open(address, logger: logger)
                do {
                    try await connection.listen(on: channel) { notifications in
                        failures = 0
                        logger.debug("listening", metadata: ["server": "\(address.server)"])
                        continuation.yield()
                        for try await _ in notifications { continuation.yield() }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch is CancellationError {
                return
            } catch {
                guard !Task.isCancelled else { return }
                let mapped = ServerErrors(server: address.server, space: nil).map(error)
                // Once per outage at warning level; the retries that follow, at debug.
                logger.log(
                    level: failures == 0 ? .warning : .debug,
                    "sync listener lost the server; reconnecting",
                    metadata: ["error": "\(mapped)"]
                )
            }
            failures += 1
            do {
                try await Task.sleep(for: backoff(afterFailures: failures))
            } catch {
                return
            }
        }
    }

    /// 50 ms doubling per consecutive failure up to `maximumBackoff`, with up to 25% jitter so
    /// that devices cut off together do not all come back in the same instant.
    func backoff(afterFailures failures: Int) -> Duration {
        let base = Duration.milliseconds(50) * (1 << min(max(failures - 1, 0), 16))
        let capped = min(base, maximumBackoff)
        return capped + capped * Double.random(in: 0...0.25)
    }
}
