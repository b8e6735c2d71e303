import Crypto
public import Foundation

/// Encrypts and authenticates blobs with AES-256-GCM under a ``Keyring``'s current key.
///
/// Each collection gets its own subkey (HKDF-SHA256 of the master key, bound to the
/// collection, key id and algorithm). Every blob gets a random 96-bit nonce, and the row's
/// collection and key are authenticated with it, so a blob copied to another row fails with
/// ``SerializationError/Code/authenticationFailed``. The header records the key id, so older
/// keys in the keyring keep their blobs readable.
///
/// The cipher is the system's libcrypto on Linux and swift-crypto elsewhere; both write and
/// read the same bytes.
///
/// ```swift
/// let keyring = try Keyring(key: SymmetricKey(size: .bits256), id: 1)
/// let chain = SerializerChain(codec: .codable(Note.self), stages: [.zlib(), .aesGCM(keyring)])
/// ```
public struct AESGCMStage: SerializationStage, BlobWritingStage {
    /// The id AES-256-GCM records use in blob headers.
    public static let id: UInt8 = 2

    /// The keys this stage encrypts and decrypts with.
    public let keyring: Keyring

    /// Creates an AES-256-GCM stage over a keyring.
    public init(keyring: Keyring) {
        self.keyring = keyring
    }

    /// ``id``, 2.
    public var stageID: UInt8 { Self.id }
    /// `"aes-256-gcm"`.
    public var name: String { "aes-256-gcm" }
    /// ``SerializationStageKind/encryption``.
    public var kind: SerializationStageKind { .encryption }

    /// Encrypts `input` under the current key; adds 28 bytes (nonce and tag).
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/noCurrentKey`` or
    ///   ``SerializationError/Code/encryptionFailed``.
    /// - Complexity: O(input length).
    public func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput? {
        try AEADFraming.seal(input, context: context, keyring: keyring, algorithm: Self.id, stage: name) {
            plaintext, nonce, key, associatedData in
            try AESGCMCipher.seal(plaintext, nonce: nonce, key: key, authenticating: associatedData)
        }
    }

    /// Encrypts `input` straight into a finished blob when the stage runs last in a chain.
    func encodeBlob(
        _ input: Data, context: SerializationStageContext, flags: BlobHeader.Flags, precedingCount: Int,
        precedingRecords: Data
    ) throws -> Data {
        try AEADFraming.sealBlob(
            input, context: context, keyring: keyring, algorithm: Self.id, stage: name, flags: flags,
            precedingCount: precedingCount, precedingRecords: precedingRecords
        ) { plaintext, nonce, key, associatedData, output in
            try AESGCMCipher.seal(plaintext, nonce: nonce, key: key, authenticating: associatedData, into: output)
        }
    }

    /// Decrypts `payload` with the key its parameters name and checks it belongs to this row.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/malformedHeader``,
    ///   ``SerializationError/Code/truncated``, ``SerializationError/Code/unknownKeyID`` or
    ///   ``SerializationError/Code/authenticationFailed`` (for every failure of the cipher
    ///   itself, whichever error the platform's backend reports).
    /// - Complexity: O(payload length).
    public func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data {
        try AEADFraming.open(
            payload, parameters: parameters, context: context, keyring: keyring, algorithm: Self.id, stage: name
        ) { combined, key, associatedData in
            try AESGCMCipher.open(combined, key: key, authenticating: associatedData)
        }
    }

    /// Tells whether the parameters name a key other than the keyring's current one.
    public func needsReencryption(parameters: Data) -> Bool {
        AEADFraming.needsReencryption(parameters: parameters, keyring: keyring)
    }
}

extension SerializationStage where Self == AESGCMStage {
    /// An AES-256-GCM stage, for stage lists: `stages: [.zlib(), .aesGCM(keyring)]`.
    ///
    /// - Parameter keyring: The keys to encrypt and decrypt with.
    public static func aesGCM(_ keyring: Keyring) -> AESGCMStage {
        AESGCMStage(keyring: keyring)
    }
}
