public import Foundation

/// A snapshot of what a ``SyncEngine`` is doing, for a sync indicator or a status command.
public struct SyncStatus: Sendable, Equatable {
    /// Where the engine is in its life.
    public enum Phase: Sendable, Equatable {
        /// Not started, or stopped.
        case stopped
        /// Connecting to the server.
        case connecting
        /// Connected and up to date, waiting for local writes or wake-ups.
        case idle
        /// Uploading or pulling.
        case syncing
        /// Cannot reach the server; retrying.
        case offline
        /// Stopped for good by an error that retrying cannot fix (see ``SyncStatus/lastError``).
        case failed
    }

    /// The engine's phase.
    public var phase: Phase = .stopped
    /// Upload operations queued locally.
    public var queued = 0
    /// Rows pushed and not yet answered.
    public var inFlight = 0
    /// When the last pull finished.
    public var lastPull: Date?
    /// The highest server sequence applied.
    public var cursor: Int64 = 0
    /// The server's highest sequence when last seen: `cursor` / `serverSequence` is the progress
    /// of a first sync.
    public var serverSequence: Int64 = 0
    /// The last error, cleared by the next successful round.
    public var lastError: SyncError?
    /// Rows refused since the engine started (tampered, rolled back): reported, never applied.
    public var rejectedRows = 0
    /// Why the last refused row was refused (kept across rounds, unlike ``lastError``).
    public var lastRejection: SyncError?

    /// The part of the space applied so far, 0...1 (1 when the space is empty).
    public var progress: Double {
        serverSequence <= 0 ? 1 : min(1, Double(cursor) / Double(serverSequence))
    }

    /// A status with nothing known yet.
    public init() {}
}
