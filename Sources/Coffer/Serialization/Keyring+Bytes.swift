import Crypto
public import Foundation

/// Keys given as bytes or as a ``DataKey``, so building a keyring needs no `import Crypto`.
///
/// ```swift
/// let keyring = try Keyring(key: keyBytes, id: 1)      // 32 bytes: Data or [UInt8]
/// try keyring.addKey(DataKey.random(), id: 2)
/// ```
///
/// The bytes are copied into the keyring's own key storage; wipe your copy when you are done
/// with it.
extension Keyring {
    /// Creates a keyring holding one key given as 32 bytes, which is current.
    ///
    /// - Parameters:
    ///   - key: The key's 32 bytes (`Data`, `[UInt8]`, …).
    ///   - id: The id blobs encrypted under it record.
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/invalidKey`` when
    ///   `key` is not 32 bytes long.
    public convenience init(key: some DataProtocol, id: KeyID) throws(SerializationError) {
        self.init()
        try addKey(key, id: id)
        try setCurrent(id)
    }

    /// Creates a keyring holding one ``DataKey``, which is current.
    ///
    /// - Throws: Never in practice (a ``DataKey`` is always 32 bytes); typed as the other
    ///   initializers are.
    public convenience init(key: DataKey, id: KeyID) throws(SerializationError) {
        self.init()
        try addKey(key, id: id)
        try setCurrent(id)
    }

    /// Adds a key given as 32 bytes; it can then decrypt blobs recording its id, or be made
    /// current.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/invalidKey`` when
    ///   `key` is not 32 bytes long, or ``SerializationError/Code/duplicateKeyID`` when the id
    ///   is taken.
    public func addKey(_ key: some DataProtocol, id: KeyID) throws(SerializationError) {
        guard key.count == 32 else {
            throw SerializationError(
                .invalidKey, stage: "keyring",
                reason: "key \(id) is \(key.count) bytes, not 32; pass 32 random bytes (for example DataKey.random())")
        }
        var bytes = [UInt8](key)
        defer { wipeSecret(&bytes) }
        try addKey(SymmetricKey(data: bytes), id: id)
    }

    /// Adds a ``DataKey``; it can then decrypt blobs recording its id, or be made current.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/duplicateKeyID`` when
    ///   the id is taken.
    public func addKey(_ key: DataKey, id: KeyID) throws(SerializationError) {
        try addKey(key.withUnsafeBytes { SymmetricKey(data: $0) }, id: id)
    }
}
