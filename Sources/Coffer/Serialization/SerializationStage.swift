public import Foundation

/// One bytes-to-bytes step of a serializer chain, such as compression or encryption.
///
/// Stages run in array order after the codec on write, and in reverse order on read. A stage
/// that changed the bytes leaves a record in the blob's ``BlobHeader`` — its ``stageID`` and
/// a few parameter bytes (a length, a key id) — so the blob can be read back later even if the
/// chain's configuration has changed since.
///
/// Coffer ships ``ZlibStage``, ``AESGCMStage`` and ``ChaChaPolyStage``; write `.zlib()`,
/// `.aesGCM(keyring)` or `.chaChaPoly(keyring)` in a stage list. Your own stages use ids
/// 128…255. Stages are called from any connection's queue at the same time.
public protocol SerializationStage: Sendable {
    /// The id written into blob headers: unique within a chain and never reused for another
    /// format. 1…127 belong to Coffer (1 zlib, 2 AES-256-GCM, 3 ChaCha20-Poly1305); 128…255 are
    /// for applications; 0 is invalid.
    var stageID: UInt8 { get }

    /// A short name used in error messages ("zlib", "aes-256-gcm", …).
    var name: String { get }

    /// What the stage does, which sets the header's flags.
    var kind: SerializationStageKind { get }

    /// Transforms bytes on their way to storage.
    ///
    /// - Parameters:
    ///   - input: The codec's bytes, or the previous stage's output.
    ///   - context: The row being written; encryption stages bind it with
    ///     ``SerializationStageContext/associatedData(parameters:)``.
    /// - Returns: The new bytes with the parameters to record, or `nil` to leave the bytes as
    ///   they are (for example when compression would not save space).
    /// - Throws: ``SerializationError``; other errors are reported as
    ///   ``SerializationError/Code/stageFailed``.
    func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput?

    /// Undoes ``encode(_:context:)``.
    ///
    /// - Parameters:
    ///   - payload: The bytes this stage produced on write.
    ///   - parameters: The parameters this stage recorded on write; not yet validated.
    ///   - context: The row being read, the same as on write.
    /// - Returns: The bytes this stage was given on write.
    /// - Throws: ``SerializationError``; other errors are reported as
    ///   ``SerializationError/Code/stageFailed``.
    func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data

    /// Tells whether bytes this stage wrote with `parameters` should be written again, for
    /// example because they are encrypted under a key that is no longer current.
    ///
    /// The default implementation returns `false`.
    func needsReencryption(parameters: Data) -> Bool
}

extension SerializationStage {
    /// Returns `false`: stages without keys never need rewriting.
    public func needsReencryption(parameters: Data) -> Bool { false }
}

/// A built-in stage that, when it runs last, writes the finished blob itself: the header, then
/// its output in place, so the chain does not allocate and copy the payload a second time.
///
/// Only the AES-GCM stage does this (the cost of its rows is checked against a target); the
/// result is byte for byte what ``SerializationStage/encode(_:context:)`` plus the chain's
/// header would give.
protocol BlobWritingStage: SerializationStage {
    /// Encodes `input` as the chain's last stage into a complete blob.
    ///
    /// - Parameters:
    ///   - flags: The header flags, this stage's included.
    ///   - precedingCount: How many records the earlier stages left.
    ///   - precedingRecords: Those records' bytes, in header form.
    func encodeBlob(
        _ input: Data, context: SerializationStageContext, flags: BlobHeader.Flags, precedingCount: Int,
        precedingRecords: Data
    ) throws -> Data
}

/// What a serialization stage does to bytes; it decides the header flag the stage sets.
public enum SerializationStageKind: Sendable, Hashable {
    /// Makes the bytes smaller; sets ``BlobHeader/Flags/compressed``.
    case compression
    /// Encrypts and authenticates the bytes; sets ``BlobHeader/Flags/encrypted``.
    case encryption
    /// Any other transformation; sets no flag.
    case transform

    /// The header flag a stage of this kind sets.
    var flag: BlobHeader.Flags {
        switch self {
        case .compression: .compressed
        case .encryption: .encrypted
        case .transform: []
        }
    }
}

/// What a stage produced on write: new bytes and the parameters needed to undo it.
public struct SerializationStageOutput: Sendable {
    /// Parameters recorded in the blob header, at most 255 bytes; stored in the clear.
    public var parameters: Data
    /// The transformed bytes.
    public var payload: Data

    /// Creates a stage output.
    public init(parameters: Data, payload: Data) {
        self.parameters = parameters
        self.payload = payload
    }
}
