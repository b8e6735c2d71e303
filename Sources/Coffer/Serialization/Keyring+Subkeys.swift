import Crypto
import Foundation

extension Keyring {
    /// The current key id and its subkey for one collection and algorithm.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/noCurrentKey``.
    /// - Complexity: O(1) once cached; the first call per collection and key id runs HKDF.
    func currentSubkey(collection: String, algorithm: UInt8) throws(SerializationError) -> (KeyID, SymmetricKey) {
        try state.withLock { (state: inout State) throws(SerializationError) in
            guard let current = state.current else {
                throw SerializationError(.noCurrentKey, stage: "keyring", reason: "the keyring has no current key")
            }
            return (current, try Self.subkey(in: &state, collection: collection, keyID: current, algorithm: algorithm))
        }
    }

    /// The subkey for one collection, key id and algorithm.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/unknownKeyID``.
    /// - Complexity: O(1) once cached; the first call per collection and key id runs HKDF.
    func subkey(collection: String, keyID: KeyID, algorithm: UInt8) throws(SerializationError) -> SymmetricKey {
        try state.withLock { (state: inout State) throws(SerializationError) in
            try Self.subkey(in: &state, collection: collection, keyID: keyID, algorithm: algorithm)
        }
    }

    private static func subkey(
        in state: inout State, collection: String, keyID: KeyID, algorithm: UInt8
    ) throws(SerializationError) -> SymmetricKey {
        if let last = state.lastSubkey, last.name.keyID == keyID, last.name.algorithm == algorithm,
            last.name.collection == collection
        {
            return last.key
        }
        let name = SubkeyName(collection: collection, keyID: keyID, algorithm: algorithm)
        if let cached = state.subkeys[name] {
            state.lastSubkey = (name, cached)
            return cached
        }
        guard let master = state.keys[keyID] else { throw unknown(keyID) }
        let subkey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, info: info(for: name), outputByteCount: 32)
        if state.subkeys.count >= subkeyCacheLimit { state.subkeys.removeAll(keepingCapacity: true) }
        state.subkeys[name] = subkey
        state.lastSubkey = (name, subkey)
        return subkey
    }

    /// HKDF's info: a fixed label, then algorithm, key id and collection, each of fixed size
    /// or length-prefixed so no two inputs share an encoding.
    static func info(for name: SubkeyName) -> Data {
        let label = Array("coffer value key v1".utf8)
        let collection = name.collection.utf8
        var info = Data()
        info.reserveCapacity(label.count + 10 + collection.count)
        info.append(contentsOf: label)
        info.append(0)
        info.append(name.algorithm)
        info.appendLittleEndian(name.keyID)
        info.appendLittleEndian(UInt32(truncatingIfNeeded: collection.count))
        info.append(contentsOf: collection)
        return info
    }
}
