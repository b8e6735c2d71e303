/// A collection's full path from object to stored bytes: a codec followed by byte stages.
///
/// ```swift
/// let chain = SerializerChain(codec: .codable(Note.self), stages: [.zlib(), .aesGCM(keyring)])
/// let blob = try chain.serialize(note, collection: "notes", key: "n1")
/// let back = try chain.deserialize(blob, collection: "notes", key: "n1")
/// ```
///
/// On write the codec runs, then each stage in order; a stage may decline (zlib on a short
/// value). A blob that any stage changed starts with a ``BlobHeader`` recording what ran; a
/// blob no stage changed is the codec's bytes, exactly as YapDatabase stored them.
///
/// On read, a chain **without** stages hands the bytes straight to the codec and never looks
/// for a header. A chain with stages but no encryption reads a blob that does not start with
/// the header magic as plain codec bytes too, so adding compression keeps old rows readable.
///
/// A chain that **encrypts** refuses every blob that is not encrypted — header-less, damaged
/// magic, or headered without an encryption record — with
/// ``SerializationError/Code/unencryptedBlob``: otherwise anyone able to write the database file
/// could plant unauthenticated rows in an encrypted collection. To encrypt a collection that
/// already holds plaintext rows, create the chain with `acceptsUnencryptedBlobs: true` (the
/// migration setting), run ``Database/reencrypt(collection:batchSize:progress:)`` to rewrite
/// them (see ``needsReencryption(_:)``), then go back to the strict default.
///
/// Chains are values; the ``Keyring`` inside encryption stages is shared, so rotating a key
/// affects every chain that uses it at once.
public struct SerializerChain: Sendable {
    /// Which column of a row a chain serializes; encryption binds it, so an object blob does
    /// not authenticate as metadata or the other way round.
    public enum Role: UInt8, Sendable, Hashable {
        /// The row's object.
        case object = 0
        /// The row's metadata.
        case metadata = 1
    }

    /// The object codec.
    public let codec: Serializer
    /// The byte stages, in the order they run on write.
    public let stages: [any SerializationStage]
    /// Which column of a row this chain serializes.
    public let role: Role
    /// Whether a chain with an encryption stage still reads blobs that are not encrypted
    /// (rows written before encryption was added): a migration setting, `false` by default.
    ///
    /// Chains without an encryption stage read unencrypted blobs whatever it says.
    public let acceptsUnencryptedBlobs: Bool

    /// Why the stage list cannot work, found once at creation and reported on every use.
    let configurationError: SerializationError?
    /// The last stage when it writes finished blobs itself (``BlobWritingStage``), found once.
    let blobWriter: (any BlobWritingStage)?

    /// Creates a chain.
    ///
    /// The stage list is checked here and any problem — more than ``BlobHeader/maxRecords``
    /// stages, a stage id of 0, two stages sharing an id — makes every call throw
    /// ``SerializationError/Code/invalidConfiguration``.
    ///
    /// - Parameters:
    ///   - codec: Turns objects into bytes and back.
    ///   - stages: Byte stages, in the order they run on write: `[.zlib(), .aesGCM(keyring)]`.
    ///   - role: Which column of a row the chain serializes; the core passes `.metadata` for
    ///     metadata chains.
    ///   - acceptsUnencryptedBlobs: Whether a chain that encrypts still reads unencrypted
    ///     blobs. By default it does not, and they fail with
    ///     ``SerializationError/Code/unencryptedBlob``; pass `true` only while migrating a
    ///     collection's plaintext rows to encryption.
    public init(
        codec: Serializer,
        stages: [any SerializationStage] = [],
        role: Role = .object,
        acceptsUnencryptedBlobs: Bool = false
    ) {
        self.codec = codec
        self.stages = stages
        self.role = role
        self.acceptsUnencryptedBlobs = acceptsUnencryptedBlobs
        self.configurationError = Self.validate(stages)
        self.blobWriter = stages.last as? any BlobWritingStage
    }

    /// Whether any stage encrypts.
    public var encrypts: Bool {
        stages.contains { $0.kind == .encryption }
    }

    private static func validate(_ stages: [any SerializationStage]) -> SerializationError? {
        guard stages.count <= BlobHeader.maxRecords else {
            return SerializationError(
                .invalidConfiguration, stage: "chain", reason: "\(stages.count) stages exceed the maximum of 8")
        }
        var seen = Set<UInt8>()
        for stage in stages {
            guard stage.stageID != 0 else {
                return SerializationError(.invalidConfiguration, stage: stage.name, reason: "stage id 0 is reserved")
            }
            guard seen.insert(stage.stageID).inserted else {
                return SerializationError(
                    .invalidConfiguration, stage: stage.name, reason: "two stages share id \(stage.stageID)")
            }
        }
        return nil
    }

    /// The stage that undoes records with this id: one of the chain's own, or — for zlib
    /// only, which needs no key — a default zlib stage, so removing compression from a chain
    /// keeps compressed rows readable.
    func stage(withID id: UInt8) -> (any SerializationStage)? {
        for stage in stages where stage.stageID == id { return stage }
        return id == ZlibStage.id ? ZlibStage() : nil
    }
}
