public import Foundation

/// One sealed row as the server stores it: what a pull returns and what a push writes.
///
/// The server sees only these fields; `ciphertext` is the sealed row (DESIGN.md, "Keys and
/// sealing"), whose associated data binds the other fields.
public struct ServerRow: Sendable, Hashable {
    /// The opaque row id: a keyed hash of collection and key, 32 bytes.
    public var rowID: Data
    /// The row's version: 1 for its first write, one more for each later one.
    public var version: Int64
    /// The device that wrote this version.
    public var deviceID: UUID
    /// Whether this version is a tombstone.
    public var deleted: Bool
    /// The key epoch the row is sealed under.
    public var keyEpoch: Int
    /// The sealed row.
    public var ciphertext: Data
    /// The server's sequence number for this write, increasing in commit order within a space.
    ///
    /// Ignored in a push or a rotation (the server assigns it).
    public var sequence: Int64

    /// Describes one row; `sequence` defaults to 0 for rows about to be pushed.
    public init(
        rowID: Data,
        version: Int64,
        deviceID: UUID,
        deleted: Bool,
        keyEpoch: Int,
        ciphertext: Data,
        sequence: Int64 = 0
    ) {
        self.rowID = rowID
        self.version = version
        self.deviceID = deviceID
        self.deleted = deleted
        self.keyEpoch = keyEpoch
        self.ciphertext = ciphertext
        self.sequence = sequence
    }
}

extension ServerRow: CustomStringConvertible {
    /// The row id in hex, version, writer and sequence; never the ciphertext.
    public var description: String {
        "ServerRow(\(rowID.syncHex), v\(version)\(deleted ? " deleted" : ""), epoch \(keyEpoch), "
            + "device \(deviceID.uuidString), seq \(sequence), \(ciphertext.count) bytes)"
    }
}

extension Data {
    /// Lowercase hex, the form error messages use for row ids.
    var syncHex: String { map { String(format: "%02x", $0) }.joined() }
}
