import Foundation

/// One row to write, with the version the writer based it on (optimistic concurrency).
public struct PushRequest: Sendable, Hashable {
    /// The row to store: its `version` is `baseVersion + 1`; its `sequence` is ignored.
    public var row: ServerRow
    /// The version the writer last saw on the server: 0 when the row must not exist yet.
    public var baseVersion: Int64

    /// Asks to store `row` if the server still holds `baseVersion` of it.
    public init(row: ServerRow, baseVersion: Int64) {
        self.row = row
        self.baseVersion = baseVersion
    }
}

/// What the server did with one `PushRequest`.
public enum PushOutcome: Sendable, Hashable {
    /// The row was stored under this sequence number.
    case accepted(sequence: Int64)
    /// The server holds another version than the base: nothing was written; this is the stored row.
    case conflict(current: ServerRow)
}
