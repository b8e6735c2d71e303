public import Crypto
import Foundation

/// The master keys of value-level encryption: several 256-bit keys by id, one of them current.
///
/// Keys are 32 bytes (`Data`, `[UInt8]`), a ``DataKey`` or a swift-crypto `SymmetricKey`:
///
/// ```swift
/// let keyring = try Keyring(key: DataKey.random(), id: 1)
/// ```
///
/// New blobs are encrypted under the current key; blobs written under any other key still in
/// the keyring stay readable, because each blob records its key id. Rotating is:
///
/// ```swift
/// try keyring.addKey(newKey, id: 2)
/// try keyring.setCurrent(2)          // new writes use key 2 at once
/// // …rewrite rows for which chain.needsReencryption(blob) is true, then:
/// try keyring.removeKey(1)
/// ```
///
/// A keyring is shared by reference and may be changed from any thread while chains use it.
/// Encryption stages never use a master key directly: they derive a subkey per collection,
/// key id and algorithm with HKDF-SHA256 and cache it here.
public final class Keyring: Sendable {
    /// A key's id, as recorded in encrypted blobs.
    public typealias KeyID = UInt32

    /// The keys, the current id and the derived subkeys, guarded together.
    struct State {
        var keys: [KeyID: SymmetricKey] = [:]
        var current: KeyID?
        var subkeys: [SubkeyName: SymmetricKey] = [:]
        /// The subkey used last: a row after row of one collection skips hashing its name.
        var lastSubkey: (name: SubkeyName, key: SymmetricKey)?
    }

    /// What a derived subkey is for.
    struct SubkeyName: Hashable {
        var collection: String
        var keyID: KeyID
        var algorithm: UInt8
    }

    /// The most derived subkeys kept before the cache starts over.
    static let subkeyCacheLimit = 4096

    let state = Locked(State())

    /// Creates an empty keyring; add a key and make it current before encrypting.
    public init() {}

    /// Creates a keyring holding one key, which is current.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/invalidKey`` when
    ///   the key is not 256 bits long.
    public convenience init(key: SymmetricKey, id: KeyID) throws(SerializationError) {
        self.init()
        try addKey(key, id: id)
        try setCurrent(id)
    }

    /// Adds a key that can then decrypt blobs recording its id, or be made current.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/invalidKey`` when
    ///   the key is not 256 bits long, or ``SerializationError/Code/duplicateKeyID`` when the
    ///   id is taken.
    public func addKey(_ key: SymmetricKey, id: KeyID) throws(SerializationError) {
        guard key.bitCount == 256 else {
            throw SerializationError(
                .invalidKey, stage: "keyring", reason: "key \(id) is \(key.bitCount) bits, not 256; pass a 256-bit key")
        }
        try state.withLock { (state: inout State) throws(SerializationError) in
            guard state.keys[id] == nil else {
                throw SerializationError(.duplicateKeyID, stage: "keyring", reason: "key id \(id) is already in use")
            }
            state.keys[id] = key
        }
    }

    /// Makes a key current: every write from now on is encrypted under it.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/unknownKeyID`` when
    ///   the keyring holds no key with that id.
    public func setCurrent(_ id: KeyID) throws(SerializationError) {
        try state.withLock { (state: inout State) throws(SerializationError) in
            guard state.keys[id] != nil else { throw Self.unknown(id) }
            state.current = id
        }
    }

    /// Removes a key; blobs that record its id can no longer be read.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/unknownKeyID`` when
    ///   the keyring holds no key with that id, or ``SerializationError/Code/keyInUse`` when it
    ///   is the current key.
    /// - Complexity: O(number of cached subkeys).
    public func removeKey(_ id: KeyID) throws(SerializationError) {
        try state.withLock { (state: inout State) throws(SerializationError) in
            guard state.keys[id] != nil else { throw Self.unknown(id) }
            guard state.current != id else {
                throw SerializationError(
                    .keyInUse, stage: "keyring", reason: "key \(id) is current; make another current first")
            }
            state.keys[id] = nil
            state.subkeys = state.subkeys.filter { $0.key.keyID != id }
            if state.lastSubkey?.name.keyID == id { state.lastSubkey = nil }
        }
    }

    /// The id new blobs are encrypted under, or `nil` when no key is current.
    public var currentKeyID: KeyID? {
        state.withLock { $0.current }
    }

    /// The ids of every key held, in ascending order.
    public var keyIDs: [KeyID] {
        state.withLock { $0.keys.keys.sorted() }
    }

    /// Tells whether the keyring holds a key with this id.
    public func contains(_ id: KeyID) -> Bool {
        state.withLock { $0.keys[id] != nil }
    }

    static func unknown(_ id: KeyID) -> SerializationError {
        SerializationError(.unknownKeyID, stage: "keyring", reason: "no key with id \(id) in the keyring")
    }
}
