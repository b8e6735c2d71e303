import Crypto
import Foundation

extension KeyFile {
    /// One wrapped copy of the data key, unlocked by one passphrase.
    ///
    /// A slot stores its label, its KDF and salt, a passphrase check, and the AES-256-GCM nonce,
    /// ciphertext and tag of the data key. From the KDF output two keys are expanded with HKDF-SHA256:
    /// the wrapping key, and a check key whose HMAC over the slot's associated data is the
    /// passphrase check. The associated data binds the file magic, format version, key identifier,
    /// label, KDF parameters and salt, so editing any of them — or moving the slot to another
    /// file or label — makes the slot fail to open.
    public struct Slot: Sendable, Hashable {
        /// The slot's unique name within its file, for example `"primary"` or `"recovery"`.
        public let label: String
        /// How this slot derives its wrapping key from its passphrase.
        public let parameters: KDFParameters
        let salt: [UInt8]
        let check: [UInt8]
        let nonce: [UInt8]
        let ciphertext: [UInt8]
        let tag: [UInt8]

        /// Size of a freshly generated salt.
        static let saltLength = 32
        /// Accepted salt sizes when reading.
        static let saltLengths = 16...64
        /// Size of the passphrase check (a full HMAC-SHA256).
        static let checkLength = 32
        /// Size of an AES-GCM nonce.
        static let nonceLength = 12
        /// Size of an AES-GCM tag.
        static let tagLength = 16

        init(
            label: String, parameters: KDFParameters, salt: [UInt8], check: [UInt8], nonce: [UInt8],
            ciphertext: [UInt8], tag: [UInt8]
        ) {
            self.label = label
            self.parameters = parameters
            self.salt = salt
            self.check = check
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        /// Wraps `dataKey` under `passphrase` with a fresh salt and nonce.
        static func seal(
            _ dataKey: DataKey, keyID: [UInt8], label: String, parameters: KDFParameters,
            passphrase: some DataProtocol
        ) throws(KeyFileError) -> Slot {
            if let failure = KeyFile.labelFailure(label) {
                throw KeyFileError(.invalidArgument, reason: failure)
            }
            let salt = KeyFile.randomBytes(saltLength)
            let keys = try SlotKeys(passphrase: passphrase, salt: salt, parameters: parameters)
            let associated = KeyFile.associatedData(keyID: keyID, label: label, parameters: parameters, salt: salt)
            do {
                let box = try dataKey.withUnsafeBytes { bytes in
                    try AES.GCM.seal(bytes, using: keys.wrapping, nonce: AES.GCM.Nonce(), authenticating: associated)
                }
                return Slot(
                    label: label, parameters: parameters, salt: salt, check: keys.check(associated),
                    nonce: Array(box.nonce), ciphertext: Array(box.ciphertext), tag: Array(box.tag))
            } catch {
                throw KeyFileError(.cryptoFailure, reason: "sealing slot \"\(label)\" failed")
            }
        }

        /// Returns the data key if `passphrase` is this slot's, `nil` if it is not.
        ///
        /// - Throws: `damaged` when the passphrase check matches but the seal does not open.
        func open(passphrase: some DataProtocol, keyID: [UInt8]) throws(KeyFileError) -> DataKey? {
            let keys = try SlotKeys(passphrase: passphrase, salt: salt, parameters: parameters)
            let associated = KeyFile.associatedData(keyID: keyID, label: label, parameters: parameters, salt: salt)
            guard KeyFile.constantTimeEquals(keys.check(associated), check) else { return nil }
            var plaintext: Data
            do {
                let box = try AES.GCM.SealedBox(
                    nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                plaintext = try AES.GCM.open(box, using: keys.wrapping, authenticating: associated)
            } catch {
                // Any error, whatever the platform reports: CryptoKit and BoringSSL differ here.
                throw KeyFileError(.damaged, reason: "slot \"\(label)\": the wrapped key fails authentication")
            }
            defer { wipeSecret(&plaintext) }
            return try DataKey(bytes: plaintext)
        }
    }

    /// The two keys a slot expands from its passphrase.
    private struct SlotKeys {
        let wrapping: SymmetricKey
        let checking: SymmetricKey

        init(passphrase: some DataProtocol, salt: [UInt8], parameters: KDFParameters) throws(KeyFileError) {
            let master = try parameters.deriveKey(passphrase: passphrase, salt: salt)
            // HKDF-Expand on the KDF output (already uniform): separate keys at no extra KDF cost.
            wrapping = master.withUnsafeBytes { prk in
                HKDF<SHA256>.expand(
                    pseudoRandomKey: prk, info: Array("coffer.keyfile.v1.wrap".utf8), outputByteCount: 32)
            }
            checking = master.withUnsafeBytes { prk in
                HKDF<SHA256>.expand(
                    pseudoRandomKey: prk, info: Array("coffer.keyfile.v1.check".utf8), outputByteCount: 32)
            }
        }

        func check(_ associated: [UInt8]) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: associated, using: checking))
        }
    }

    /// The key identifier of `dataKey`: the first 16 bytes of HMAC-SHA256(key, label).
    static func keyID(for dataKey: DataKey) -> [UInt8] {
        let code = dataKey.withUnsafeBytes { bytes in
            HMAC<SHA256>.authenticationCode(
                for: Array("coffer.keyfile.v1.key-id".utf8), using: SymmetricKey(data: bytes))
        }
        return Array(Array(code).prefix(keyIDLength))
    }

    /// Size of the key identifier.
    static let keyIDLength = 16
}

extension KeyFile {
    /// Compares two byte strings in time that depends only on their lengths.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for i in lhs.indices {
            difference |= lhs[i] ^ rhs[i]
        }
        return difference == 0
    }

    /// `count` bytes from BoringSSL's cryptographically secure generator (`count` a multiple of 8).
    static func randomBytes(_ count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}
