/// Serializer, sanitizer and object-policy registration (DESIGN.md §4).
///
/// Registration is thread-safe and takes effect for transactions that start afterwards.
/// Per-collection settings fall back, field by field, on the database-wide defaults.
extension Database {
    /// Stores objects and metadata of `collection` with `chain`.
    public func registerSerializer(_ chain: SerializerChain, forCollection collection: String) {
        updateConfig(collection) {
            $0.objectChain = chain
            $0.metadataChain = chain.withRole(.metadata)
        }
    }

    /// Stores objects and metadata of every collection in `collections` with `chain`.
    public func registerSerializer(_ chain: SerializerChain, forCollections collections: some Sequence<String>) {
        for collection in collections { registerSerializer(chain, forCollection: collection) }
    }

    /// Stores the objects (not the metadata) of `collection` with `chain`.
    public func registerObjectSerializer(_ chain: SerializerChain, forCollection collection: String) {
        updateConfig(collection) { $0.objectChain = chain }
    }

    /// Stores the metadata (not the objects) of `collection` with `chain` (build it with
    /// `role: .metadata`, so an object blob cannot authenticate in the metadata column).
    public func registerMetadataSerializer(_ chain: SerializerChain, forCollection collection: String) {
        updateConfig(collection) { $0.metadataChain = chain }
    }

    /// The chain for objects and metadata of collections without their own.
    public func registerDefaultSerializer(_ chain: SerializerChain) {
        registry.update {
            $0.defaults.objectChain = chain
            $0.defaults.metadataChain = chain.withRole(.metadata)
        }
    }

    /// The chain for objects of collections without their own.
    public func registerDefaultObjectSerializer(_ chain: SerializerChain) {
        registry.update { $0.defaults.objectChain = chain }
    }

    /// The chain for metadata of collections without their own.
    public func registerDefaultMetadataSerializer(_ chain: SerializerChain) {
        registry.update { $0.defaults.metadataChain = chain }
    }

    /// Stores objects of `collection` as `T` encoded in `format`, then through `stages` (for
    /// example `[.zlib(), .aesGCM(keyring)]`); metadata keeps its own chain.
    ///
    /// - Parameters:
    ///   - type: The type stored in the collection.
    ///   - collection: The collection.
    ///   - format: The format new values are written in; `nil` uses
    ///     ``DatabaseOptions/codableFormat`` (JSON with sorted keys by default). Rows of every
    ///     format stay readable.
    ///   - stages: The byte stages after the codec, in the order they run on write.
    public func registerCodable<T: Codable & Sendable>(
        _ type: T.Type, forCollection collection: String, format: CodableFormat? = nil,
        stages: [any SerializationStage] = []
    ) {
        registerObjectSerializer(
            SerializerChain(codec: .codable(T.self, format: format ?? options.codableFormat), stages: stages),
            forCollection: collection)
    }

    /// Stores objects of `collection` as `O` and its metadata as `M`, both encoded in `format`
    /// (`nil`: ``DatabaseOptions/codableFormat``) and then through `stages`.
    public func registerCodable<O: Codable & Sendable, M: Codable & Sendable>(
        _ objectType: O.Type, metadata metadataType: M.Type, forCollection collection: String,
        format: CodableFormat? = nil, stages: [any SerializationStage] = []
    ) {
        updateConfig(collection) {
            let format = format ?? options.codableFormat
            $0.objectChain = SerializerChain(codec: .codable(O.self, format: format), stages: stages)
            $0.metadataChain = SerializerChain(
                codec: .codable(M.self, format: format), stages: stages, role: .metadata)
        }
    }

    /// Stores objects of `collection` as raw `Data`, then through `stages` (none: byte for byte).
    public func registerData(forCollection collection: String, stages: [any SerializationStage] = []) {
        registerObjectSerializer(SerializerChain(codec: .data, stages: stages), forCollection: collection)
    }

    /// Runs `sanitizer` on objects of `collection` before they are serialized.
    public func registerObjectPreSanitizer(_ sanitizer: @escaping PreSanitizer, forCollection collection: String) {
        updateConfig(collection) { $0.objectPreSanitizer = sanitizer }
    }

    /// Runs `sanitizer` on objects of `collection` after they are written and the extensions ran.
    public func registerObjectPostSanitizer(_ sanitizer: @escaping PostSanitizer, forCollection collection: String) {
        updateConfig(collection) { $0.objectPostSanitizer = sanitizer }
    }

    /// Runs `sanitizer` on metadata of `collection` before it is serialized (nil clears the metadata).
    public func registerMetadataPreSanitizer(_ sanitizer: @escaping PreSanitizer, forCollection collection: String) {
        updateConfig(collection) { $0.metadataPreSanitizer = sanitizer }
    }

    /// Runs `sanitizer` on metadata of `collection` after it is written and the extensions ran.
    public func registerMetadataPostSanitizer(_ sanitizer: @escaping PostSanitizer, forCollection collection: String) {
        updateConfig(collection) { $0.metadataPostSanitizer = sanitizer }
    }

    /// The pre-sanitizer for objects and metadata of collections without their own.
    public func registerDefaultPreSanitizer(_ sanitizer: @escaping PreSanitizer) {
        registry.update {
            $0.defaults.objectPreSanitizer = sanitizer
            $0.defaults.metadataPreSanitizer = sanitizer
        }
    }

    /// The post-sanitizer for objects and metadata of collections without their own.
    public func registerDefaultPostSanitizer(_ sanitizer: @escaping PostSanitizer) {
        registry.update {
            $0.defaults.objectPostSanitizer = sanitizer
            $0.defaults.metadataPostSanitizer = sanitizer
        }
    }

    /// What sibling connections cache for objects of `collection` after a commit.
    public func setObjectPolicy(_ policy: ObjectPolicy, forCollection collection: String) {
        updateConfig(collection) { $0.objectPolicy = policy }
    }

    /// What sibling connections cache for metadata of `collection` after a commit.
    public func setMetadataPolicy(_ policy: ObjectPolicy, forCollection collection: String) {
        updateConfig(collection) { $0.metadataPolicy = policy }
    }

    /// The object policy of collections without their own (default: containment).
    public func setDefaultObjectPolicy(_ policy: ObjectPolicy) {
        registry.update { $0.defaults.objectPolicy = policy }
    }

    /// The metadata policy of collections without their own (default: containment).
    public func setDefaultMetadataPolicy(_ policy: ObjectPolicy) {
        registry.update { $0.defaults.metadataPolicy = policy }
    }

    /// The object policy in force for `collection`.
    public func objectPolicy(forCollection collection: String) -> ObjectPolicy {
        registry.read { $0.config(for: collection).objectPolicy }
    }

    /// The metadata policy in force for `collection`.
    public func metadataPolicy(forCollection collection: String) -> ObjectPolicy {
        registry.read { $0.config(for: collection).metadataPolicy }
    }

    func updateConfig(_ collection: String, _ body: (inout CollectionOverrides) -> Void) {
        registry.update { $0.update(collection, body) }
    }

}

extension SerializerChain {
    /// The same chain authenticating its blobs for `role` (object and metadata blobs must differ).
    func withRole(_ role: Role) -> SerializerChain {
        role == self.role
            ? self
            : SerializerChain(
                codec: codec, stages: stages, role: role, acceptsUnencryptedBlobs: acceptsUnencryptedBlobs)
    }
}
