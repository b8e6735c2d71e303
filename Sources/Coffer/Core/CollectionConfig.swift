import Foundation

/// How one collection's objects and metadata are serialized, sanitized and shared.
struct CollectionConfig: Sendable {
    var objectChain: SerializerChain
    var metadataChain: SerializerChain
    var objectPreSanitizer: PreSanitizer?
    var objectPostSanitizer: PostSanitizer?
    var metadataPreSanitizer: PreSanitizer?
    var metadataPostSanitizer: PostSanitizer?
    var objectPolicy: ObjectPolicy
    var metadataPolicy: ObjectPolicy
}

/// Per-collection settings with database-wide defaults; each field falls back on its own.
struct CollectionOverrides: Sendable {
    var objectChain: SerializerChain?
    var metadataChain: SerializerChain?
    var objectPreSanitizer: PreSanitizer?
    var objectPostSanitizer: PostSanitizer?
    var metadataPreSanitizer: PreSanitizer?
    var metadataPostSanitizer: PostSanitizer?
    var objectPolicy: ObjectPolicy?
    var metadataPolicy: ObjectPolicy?
}

/// Every collection's configuration.
///
/// A value type: a transaction takes a copy when it starts, so registration on another thread never changes a
/// running transaction.
struct ConfigRegistry: Sendable {
    /// The settings, behind one reference copied on write: every transaction takes a snapshot of
    /// the registry when it begins, and copying the fields retained each chain, sanitizer and
    /// dictionary, then released them all at its end.
    private var storage = Storage()

    var defaults: CollectionConfig {
        get { storage.defaults }
        set {
            uniqueStorage().defaults = newValue
            storage.resolved = ResolvedConfigCache()
        }
    }
    var collections: [String: CollectionOverrides] {
        get { storage.collections }
        set {
            uniqueStorage().collections = newValue
            storage.resolved = ResolvedConfigCache()
        }
    }
    /// The collections resolved so far under exactly these settings; any change starts a new one.
    var resolved: ResolvedConfigCache { storage.resolved }

    /// The storage, copied first when another registry (a transaction's snapshot) shares it.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    private final class Storage: @unchecked Sendable {
        // Safety: changed only through `uniqueStorage()`, i.e. while exactly one registry holds
        // it, and that registry lives behind the database's registry lock; shared copies (the
        // transactions' snapshots) only read it.
        var defaults = CollectionConfig(
            objectChain: SerializerChain(codec: .automatic),
            metadataChain: SerializerChain(codec: .automatic, role: .metadata),
            objectPolicy: .containment,
            metadataPolicy: .containment)
        var collections: [String: CollectionOverrides] = [:]
        var resolved = ResolvedConfigCache()

        func copy() -> Storage {
            let copy = Storage()
            copy.defaults = defaults
            copy.collections = collections
            copy.resolved = resolved
            return copy
        }
    }

    /// The settings in force for `collection`.
    func config(for collection: String) -> CollectionConfig {
        guard let o = collections[collection] else { return defaults }
        return CollectionConfig(
            objectChain: o.objectChain ?? defaults.objectChain,
            metadataChain: o.metadataChain ?? defaults.metadataChain,
            objectPreSanitizer: o.objectPreSanitizer ?? defaults.objectPreSanitizer,
            objectPostSanitizer: o.objectPostSanitizer ?? defaults.objectPostSanitizer,
            metadataPreSanitizer: o.metadataPreSanitizer ?? defaults.metadataPreSanitizer,
            metadataPostSanitizer: o.metadataPostSanitizer ?? defaults.metadataPostSanitizer,
            objectPolicy: o.objectPolicy ?? defaults.objectPolicy,
            metadataPolicy: o.metadataPolicy ?? defaults.metadataPolicy)
    }

    /// Makes collections without a codec write `format` (``DatabaseOptions/codableFormat``).
    mutating func useAutomaticCodec(writing format: CodableFormat) {
        defaults.objectChain = SerializerChain(codec: .automatic(writing: format))
        defaults.metadataChain = SerializerChain(codec: .automatic(writing: format), role: .metadata)
    }

    mutating func update(_ collection: String, _ body: (inout CollectionOverrides) -> Void) {
        body(&collections[collection, default: CollectionOverrides()])
    }
}

/// One collection's resolved settings, shared by reference so the write and read paths do
/// not copy (and retain) every chain and closure on each row.
final class ResolvedConfig: Sendable {
    let objectChain: SerializerChain
    let metadataChain: SerializerChain
    let objectPreSanitizer: PreSanitizer?
    let objectPostSanitizer: PostSanitizer?
    let metadataPreSanitizer: PreSanitizer?
    let metadataPostSanitizer: PostSanitizer?
    let objectPolicy: ObjectPolicy
    let metadataPolicy: ObjectPolicy
    /// Whether objects are `Data` stored as they are (the identity codec, no stages), so a typed
    /// read of `Data` hands out the stored bytes: answered once here, as asking the chain on each
    /// read copied it.
    let storesDataAsIs: Bool
    /// Whether a `Data` object without metadata goes to its row as it is and nothing else sees
    /// it on the way: stored as is, no object sanitizers, the default policies (nothing to copy
    /// into the changeset), so `setObject(_: Data, …)` need not box it.
    let writesDataAsIs: Bool

    init(_ config: CollectionConfig) {
        if case .asIs? = config.objectChain.directRead(as: Data.self) {
            storesDataAsIs = true
        } else {
            storesDataAsIs = false
        }
        writesDataAsIs =
            storesDataAsIs && config.objectPreSanitizer == nil && config.objectPostSanitizer == nil
            && config.objectPolicy == .containment && config.metadataPolicy == .containment
        objectChain = config.objectChain
        metadataChain = config.metadataChain
        objectPreSanitizer = config.objectPreSanitizer
        objectPostSanitizer = config.objectPostSanitizer
        metadataPreSanitizer = config.metadataPreSanitizer
        metadataPostSanitizer = config.metadataPostSanitizer
        objectPolicy = config.objectPolicy
        metadataPolicy = config.metadataPolicy
    }
}

/// The resolved configurations of one registry state, shared by every transaction that copied
/// that state: resolving a collection (copying its chains, allocating the shared object) cost each
/// small write transaction 1.5% of its instructions when every transaction did it again.
final class ResolvedConfigCache: Sendable {
    private let entries = Locked<[String: ResolvedConfig]>([:])

    func config(for collection: String, in registry: ConfigRegistry) -> ResolvedConfig {
        if let hit = entries.withLock({ $0[collection] }) { return hit }
        // Two transactions may resolve the same collection at once: the results are equal.
        let config = ResolvedConfig(registry.config(for: collection))
        entries.withLock { $0[collection] = config }
        return config
    }
}

/// A copy of the registry that one connection's transactions resolve collections through.
///
/// A class, so the connection keeps it and hands it to its next transaction (while the registry
/// is unchanged) by reference, with the collection it resolved last; only that connection's
/// queue uses it.
final class ConfigSnapshot {
    let registry: ConfigRegistry
    /// The ``ConfigRegistryStore/version`` `registry` was copied at.
    let version: UInt64
    // Unchecked, these two: read and set by every row's read and write, only on the
    // connection's queue, by code that calls out to nothing meanwhile.
    /// Most transactions touch one collection: remember the last one to skip the hashing.
    @exclusivity(unchecked) private var lastCollection: String?
    @exclusivity(unchecked) private var lastConfig: ResolvedConfig?

    init(_ registry: ConfigRegistry, version: UInt64) {
        self.registry = registry
        self.version = version
    }

    /// `config(for: collection).storesDataAsIs`, asked on every uncached read of `Data`.
    func storesDataAsIs(_ collection: String) -> Bool { answer(collection) { $0.storesDataAsIs } }

    /// `config(for: collection).writesDataAsIs`, asked on every write of a `Data` object.
    func writesDataAsIs(_ collection: String) -> Bool { answer(collection) { $0.writesDataAsIs } }

    /// What `read` answers of `collection`'s config, without the retain and release of the config
    /// that `config(for:)` returns when `collection` is the last one resolved.
    @inline(__always)
    private func answer(_ collection: String, _ read: (ResolvedConfig) -> Bool) -> Bool {
        if lastCollection == collection, let lastConfig { return read(lastConfig) }
        return read(config(for: collection))
    }

    func config(for collection: String) -> ResolvedConfig {
        if let lastConfig, lastCollection == collection { return lastConfig }
        let config = registry.resolved.config(for: collection, in: registry)
        lastCollection = collection
        lastConfig = config
        return config
    }
}
