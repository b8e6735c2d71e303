import Crypto
public import Foundation

/// The secret every device of a space shares for one key epoch, which never leaves them in clear.
///
/// It derives row ids, seals rows, and proves itself with the space's key check. Held as a swift-crypto `SymmetricKey` (which wipes its storage when released); its
/// description never shows the bytes.
public struct SyncKey: Sendable, CustomStringConvertible {
    /// The size of a sync key, in bytes.
    public static let byteCount = 32

    /// The key epoch this key belongs to (1 for a new space, plus one per rotation).
    public let epoch: Int
    let key: SymmetricKey

    /// A sync key from its 32 bytes, for `epoch`.
    ///
    /// - Throws: `SyncError.misuse` when `bytes` is not 32 bytes long or the epoch is negative.
    public init(bytes: some DataProtocol, epoch: Int) throws(SyncError) {
        guard bytes.count == Self.byteCount, epoch >= 0, epoch <= Int(UInt32.max) else {
            throw SyncError.misuse("a sync key is \(Self.byteCount) bytes with an epoch in 0...\(UInt32.max)")
        }
        self.key = SymmetricKey(data: Data(bytes))
        self.epoch = epoch
    }

    /// A fresh random key for `epoch`, from the system's secure random source.
    public static func random(epoch: Int) -> SyncKey {
        SyncKey(key: SymmetricKey(size: .bits256), epoch: epoch)
    }

    init(key: SymmetricKey, epoch: Int) {
        self.key = key
        self.epoch = epoch
    }

    /// `SyncKey(epoch 3)`: never the bytes.
    public var description: String { "SyncKey(epoch \(epoch))" }

    /// The raw bytes, for sealing the key into an enrollment file or the local store.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try key.withUnsafeBytes(body)
    }

    /// The purpose-bound subkeys of DESIGN.md ("Keys and sealing").
    var subkeys: SyncSubkeys { SyncSubkeys(key) }
}

/// The subkeys derived from one sync key by HKDF-SHA256, one per purpose, so no two uses share
/// a key.
struct SyncSubkeys: Sendable {
    let rowID: SymmetricKey
    let seal: SymmetricKey
    let check: SymmetricKey
    let channel: SymmetricKey

    init(_ key: SymmetricKey) {
        func derive(_ info: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(info.utf8), outputByteCount: 32)
        }
        rowID = derive("coffer-sync row-id v1")
        seal = derive("coffer-sync seal v1")
        check = derive("coffer-sync check v1")
        channel = derive("coffer-sync channel v1")
    }
}
