import Foundation

/// Two writes of one row that met: the device's own unsent write and one from the server.
public struct SyncConflict: Sendable {
    /// The row's collection.
    public let collection: String
    /// The row's key.
    public let key: String
    /// The local value; nil when the local write deleted the row.
    public let local: SyncValue?
    /// When the local write happened.
    public let localTimestamp: HybridTimestamp
    /// The server's value; nil when it deletes the row.
    public let remote: SyncValue?
    /// When the server's write happened (on its device).
    public let remoteTimestamp: HybridTimestamp
}

/// What a merge handler keeps for a conflicting row.
public enum SyncResolution: Sendable {
    /// The local write stays and will be uploaded over the server's.
    case keepLocal
    /// The server's write replaces the local one.
    case keepRemote
    /// A new value (nil deletes the row), written as a new local write and uploaded.
    case write(SyncValue?)
}

/// Decides conflicts between a local unsent write and a server write of the same row.
///
/// Every device must decide alike for the devices to converge: a handler must depend only on
/// its input.
public typealias SyncMergeHandler = @Sendable (SyncConflict) throws -> SyncResolution

/// The merge rules the package ships.
public enum SyncMerge {
    /// Last writer wins: the write with the later ``HybridTimestamp`` stays.
    ///
    /// Timestamps compare by clock value, then by device id. A deletion is a write like any other: a later write brings the row back, an
    /// earlier one never does.
    public static let lastWriterWins: SyncMergeHandler = { conflict in
        conflict.remoteTimestamp > conflict.localTimestamp ? .keepRemote : .keepLocal
    }
}
