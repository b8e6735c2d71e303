public import Foundation

/// What a device knows of one synced row beyond its value: the server version it is based on,
/// when its current value was written, and whether that value still has to reach the server.
public struct SyncRowState: Sendable, Hashable, Codable {
    /// The row's id under the current key epoch, once known (nil until first uploaded or pulled).
    public var rowID: Data?
    /// The highest server version this device has seen for the row (0 = never on the server).
    public var version: Int64
    /// When the row's current local value (or its deletion) was written.
    public var timestamp: HybridTimestamp
    /// Whether the current local value is a local write the server has not accepted yet.
    public var pending: Bool
    /// Whether the current value is a deletion (a tombstone, kept so an older write never
    /// resurrects the row).
    public var deleted: Bool

    /// Describes a row's sync state.
    public init(rowID: Data?, version: Int64, timestamp: HybridTimestamp, pending: Bool, deleted: Bool) {
        self.rowID = rowID
        self.version = version
        self.timestamp = timestamp
        self.pending = pending
        self.deleted = deleted
    }
}
