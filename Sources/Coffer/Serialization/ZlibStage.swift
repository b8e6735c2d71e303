public import Foundation

/// Compresses blobs with zlib when that makes them smaller, and refuses to inflate anything
/// larger than a configured ceiling.
///
/// Blobs shorter than ``threshold`` are stored as they are, and so is any blob that would not
/// shrink once its header record is counted. The header records the uncompressed length; on
/// read, a length above ``decompressionLimit`` is refused before any inflation, and inflation
/// never produces more than the recorded length — so a zip bomb is an error, not an
/// allocation.
///
/// ```swift
/// let chain = SerializerChain(codec: .codable(Note.self), stages: [.zlib(threshold: 1024)])
/// ```
public struct ZlibStage: SerializationStage {
    /// The id zlib records use in blob headers.
    public static let id: UInt8 = 1

    /// Inputs shorter than this many bytes are not compressed.
    public let threshold: Int
    /// The zlib compression level: 0…9, or -1 for zlib's default (6).
    public let level: Int32
    /// The most bytes a blob may inflate to; larger blobs fail with
    /// ``SerializationError/Code/decompressionLimitExceeded``.
    public let decompressionLimit: Int

    /// The default ``threshold``: 512 bytes.
    public static let defaultThreshold = 512
    /// The default ``decompressionLimit``: 64 MiB.
    public static let defaultDecompressionLimit = 64 << 20

    /// Creates a zlib stage.
    ///
    /// - Parameters:
    ///   - threshold: Inputs shorter than this many bytes are not compressed.
    ///   - level: The zlib compression level: 0…9, or -1 for zlib's default (6). An invalid level
    ///     makes writes fail with ``SerializationError/Code/invalidConfiguration``.
    ///   - decompressionLimit: The most bytes a blob may inflate to.
    public init(
        threshold: Int = ZlibStage.defaultThreshold,
        level: Int32 = -1,
        decompressionLimit: Int = ZlibStage.defaultDecompressionLimit
    ) {
        self.threshold = threshold
        self.level = level
        self.decompressionLimit = decompressionLimit
    }

    /// ``id``, 1.
    public var stageID: UInt8 { Self.id }
    /// `"zlib"`.
    public var name: String { "zlib" }
    /// ``SerializationStageKind/compression``.
    public var kind: SerializationStageKind { .compression }

    /// Compresses `input` when it is long enough and shrinks; records its length.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/invalidConfiguration``
    ///   for an invalid level, or ``SerializationError/Code/compressionFailed``.
    /// - Complexity: O(input length); allocates zlib's state sized to the input (≤ ~256 KiB).
    public func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput? {
        // The header record costs 6 bytes; compression must beat the input by more than that.
        let limit = input.count - 7
        guard input.count >= threshold, limit > 0, input.count <= Int(UInt32.max) else { return nil }
        let deflater = try ZlibDeflater.make(
            level: level, windowBits: ZlibDeflater.windowBits(forInputCount: input.count))
        var output = Data()
        guard try deflater.compress(input, finish: true, into: &output, limit: limit) else { return nil }
        var parameters = Data()
        parameters.appendLittleEndian(UInt32(input.count))
        return SerializationStageOutput(parameters: parameters, payload: output)
    }

    /// Inflates `payload` to exactly the recorded length.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/malformedHeader``
    ///   when the parameters are not a 4-byte length,
    ///   ``SerializationError/Code/decompressionLimitExceeded`` when the recorded length is
    ///   above ``decompressionLimit``, or ``SerializationError/Code/inflateFailed`` when the
    ///   payload is not a zlib stream of exactly that length.
    /// - Complexity: O(uncompressed length).
    public func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data {
        guard let recorded = parameters.littleEndianUInt32() else {
            throw SerializationError(.malformedHeader, stage: name, reason: "zlib parameters are not a 4-byte length")
        }
        let length = Int(recorded)
        guard length <= decompressionLimit else {
            throw SerializationError(
                .decompressionLimitExceeded, stage: name,
                reason: "recorded length \(length) exceeds the \(decompressionLimit)-byte limit")
        }
        // Deflate expands at most 1032:1, so a larger recorded length cannot be genuine.
        guard length <= payload.count * 1032 + 1024 else {
            throw SerializationError(
                .inflateFailed, stage: name,
                reason: "recorded length \(length) is impossible for \(payload.count) bytes")
        }
        let inflater = try ZlibInflater.make()
        let output: Data
        switch Result(catching: { () throws(SerializationError) in
            try inflater.decompress(payload, limit: length, expectedLength: length)
        }) {
        case .success(let inflated):
            output = inflated
        case .failure(let error) where error.code == .decompressionLimitExceeded:
            throw SerializationError(.inflateFailed, stage: name, reason: "data inflates beyond its recorded length")
        case .failure(let error):
            throw error
        }
        guard output.count == length else {
            throw SerializationError(.inflateFailed, stage: name, reason: "data inflates short of its recorded length")
        }
        return output
    }
}

extension SerializationStage where Self == ZlibStage {
    /// A zlib compression stage, for stage lists: `stages: [.zlib(), .aesGCM(keyring)]`.
    ///
    /// - Parameters:
    ///   - threshold: Inputs shorter than this many bytes are not compressed.
    ///   - level: The zlib compression level: 0…9, or -1 for zlib's default (6).
    ///   - decompressionLimit: The most bytes a blob may inflate to.
    public static func zlib(
        threshold: Int = ZlibStage.defaultThreshold,
        level: Int32 = -1,
        decompressionLimit: Int = ZlibStage.defaultDecompressionLimit
    ) -> ZlibStage {
        ZlibStage(threshold: threshold, level: level, decompressionLimit: decompressionLimit)
    }
}
