public import Foundation

/// Why a value could not be turned into bytes or back, and at which stage of its chain.
///
/// Every failure of the serialization layer — a codec, a stage, the blob header or the
/// ``Keyring`` — is reported as this one type, so a caller switches on ``code`` and never
/// parses messages. The core wraps it in its database error together with the row.
///
/// Messages name types, sizes and key ids; they never contain value bytes, key material or
/// passphrases.
public struct SerializationError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What went wrong, as a code a caller can switch on.
    public enum Code: Sendable, Hashable {
        /// The object is not of the type the codec handles.
        case typeMismatch
        /// The codec failed to encode or decode.
        case codecFailed
        /// A header was required but the blob does not start with Coffer's magic bytes.
        case badMagic
        /// The blob has Coffer's magic but a format version this build cannot read.
        case unsupportedVersion
        /// The blob ends before its header (or a stage's fixed-size framing) is complete.
        case truncated
        /// The header is inconsistent: reserved bits set, flags that disagree with its stage
        /// records, or parameters of the wrong size.
        case malformedHeader
        /// The blob was written by a stage that this chain does not contain.
        case unknownStage
        /// The blob, or a write, names a key id that the keyring does not hold.
        case unknownKeyID
        /// The keyring holds no current key, so nothing can be encrypted.
        case noCurrentKey
        /// Authenticated decryption failed: the blob was altered, belongs to another row, or
        /// the key with its id is not the one it was written with.
        case authenticationFailed
        /// Encryption itself failed (not expected with valid keys).
        case encryptionFailed
        /// A custom stage threw an error of its own type.
        case stageFailed
        /// Deflating failed (not expected with valid settings).
        case compressionFailed
        /// The compressed bytes are not a valid zlib stream, or inflate to a length other than
        /// the one recorded in the header.
        case inflateFailed
        /// The blob would inflate beyond the stage's configured ceiling; nothing that large was
        /// allocated.
        case decompressionLimitExceeded
        /// A key is not 256 bits long.
        case invalidKey
        /// A key with that id is already in the keyring.
        case duplicateKeyID
        /// The current key cannot be removed from the keyring while it is current.
        case keyInUse
        /// The chain requires encrypted blobs and this blob is not encrypted.
        case unencryptedBlob
        /// The chain or a stage is configured in a way that cannot work (for example two stages
        /// with the same id).
        case invalidConfiguration
    }

    /// What went wrong.
    public var code: Code
    /// The stage or codec that failed ("json", "zlib", "aes-256-gcm", "header", "keyring", …).
    public var stage: String
    /// A human-readable reason; never contains value bytes or key material.
    public var reason: String
    /// The collection of the row being read or written, when known.
    public var collection: String?
    /// The key of the row being read or written, when known.
    public var key: String?

    /// Creates an error that is not yet tied to a row.
    public init(_ code: Code, stage: String, reason: String) {
        self.code = code
        self.stage = stage
        self.reason = reason
    }

    /// `stage: reason`, followed by the row when known, then what to do about it.
    public var description: String {
        summary + ". " + code.recoverySuggestion
    }

    /// `stage: reason`, followed by the row when known.
    var summary: String {
        guard let collection, let key else { return "\(stage): \(reason)" }
        return "\(stage): \(reason) (row \(collection)/\(key))"
    }

    /// The same error, naming the row it happened on.
    func at(collection: String, key: String) -> SerializationError {
        var copy = self
        copy.collection = collection
        copy.key = key
        return copy
    }

    /// Same as ``description``, for Foundation's error reporting.
    public var errorDescription: String? { description }

    /// What to do about the error: ``Code/recoverySuggestion``.
    public var recoverySuggestion: String? { code.recoverySuggestion }
}
