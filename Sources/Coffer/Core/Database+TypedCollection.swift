extension Database {
    /// Stores the objects of `collection` as `Object` encoded in `format` (and, for a
    /// ``TypedCollection`` with a metadata type, its metadata as `Metadata`), each then through
    /// `stages` — for example `[.zlib(), .aesGCM(keyring)]`.
    ///
    /// `format` `nil` uses ``DatabaseOptions/codableFormat`` (JSON unless set); rows of every
    /// format stay readable. Registering is optional: an unregistered collection keeps the
    /// default codec, which stores the same format, and typed reads decode it. Registering makes reads decode straight into the
    /// handle's types and lets the collection be compressed or encrypted. Like every registration
    /// it takes effect for transactions that start afterwards.
    ///
    /// - Throws: ``DatabaseError`` `.typeMismatch` when a codec for other types is already
    ///   registered for the collection (nothing changes; register with
    ///   ``registerSerializer(_:forCollection:)`` to replace it deliberately), `.closed` after
    ///   ``close(timeout:)-11g9c``.
    public func register<Object, Metadata>(
        _ collection: TypedCollection<Object, Metadata>, format: CodableFormat? = nil,
        stages: [any SerializationStage] = []
    ) throws {
        let format = format ?? options.codableFormat
        try gate.checkOpen()
        try registry.update { registry in
            let current = registry.config(for: collection.name)
            try collection.checkCodecs(object: current.objectChain, metadata: current.metadataChain)
            let typedMetadata = Metadata.self != NoMetadata.self
            registry.update(collection.name) {
                $0.objectChain = SerializerChain(codec: .codable(Object.self, format: format), stages: stages)
                if typedMetadata {
                    $0.metadataChain = SerializerChain(
                        codec: .codable(Metadata.self, format: format), stages: stages, role: .metadata)
                }
            }
        }
    }

    /// Throws `.typeMismatch` when the collection's registered codecs store other types than the
    /// handle names, for typed calls made outside a transaction (a proxy's), and `.closed` after a
    /// close.
    func checkTypes<Object, Metadata>(of collection: TypedCollection<Object, Metadata>) throws {
        try gate.checkOpen()
        let current = registry.read { $0.config(for: collection.name) }
        try collection.checkCodecs(object: current.objectChain, metadata: current.metadataChain)
    }
}
