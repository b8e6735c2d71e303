import Crypto
public import Foundation

/// The opaque id under which the server stores a row: a keyed hash of its collection and key,
/// so the server never learns either and cannot tell which rows belong to which collection.
public struct RowID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The 32 bytes of the HMAC-SHA256.
    public let bytes: Data

    /// A row id from its 32 bytes (as the server stores it).
    ///
    /// - Throws: `SyncError.tampered` when `bytes` is not 32 bytes long.
    public init(bytes: Data) throws(SyncError) {
        guard bytes.count == 32 else {
            throw SyncError.tampered(rowID: Data(bytes.prefix(32)).hexString, reason: "a row id must be 32 bytes")
        }
        self.bytes = Data(bytes)
    }

    init(hmac: Data) { bytes = hmac }

    /// The row id of `key` in `collection` under `syncKey`: HMAC-SHA256 over the length-prefixed
    /// collection and key, so no two (collection, key) pairs concatenate alike.
    public init(collection: String, key: String, syncKey: SyncKey) {
        self.init(collection: collection, key: key, subkeys: syncKey.subkeys)
    }

    init(collection: String, key: String, subkeys: SyncSubkeys) {
        var message = ByteWriter()
        message.append(prefixed: collection)
        message.append(prefixed: key)
        bytes = Data(HMAC<SHA256>.authenticationCode(for: message.data, using: subkeys.rowID))
    }

    /// Lowercase hex: safe to log, it reveals nothing of the row.
    public var description: String { bytes.hexString }

    /// Orders by bytes, so batches are deterministic.
    public static func < (lhs: RowID, rhs: RowID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
