public import Foundation

/// A row as the server stores it: its clear labels (all bound into the seal) and the ciphertext.
public struct SealedRow: Sendable, Hashable {
    /// The keyed hash of the row's collection and key.
    public var rowID: RowID
    /// The row's version: 1 for the first write, plus one per accepted write.
    public var version: Int64
    /// The device that uploaded this version.
    public var deviceID: UUID
    /// Whether this version deletes the row.
    public var deleted: Bool
    /// The key epoch the row is sealed under.
    public var keyEpoch: Int
    /// Nonce, ciphertext and tag of AES-256-GCM (swift-crypto's combined form).
    public var ciphertext: Data

    /// Describes a sealed row, for example one read back from the server.
    public init(rowID: RowID, version: Int64, deviceID: UUID, deleted: Bool, keyEpoch: Int, ciphertext: Data) {
        self.rowID = rowID
        self.version = version
        self.deviceID = deviceID
        self.deleted = deleted
        self.keyEpoch = keyEpoch
        self.ciphertext = ciphertext
    }
}
