import CofferSQLite
public import Foundation

/// Reads the database at one snapshot; valid only inside the closure it was passed to.
///
/// Every method throws `misuse` once the closure has returned. A `nil` collection is the
/// default collection `""`.
public class ReadTransaction {
    /// The connection running this transaction.
    public let connection: Connection
    /// The snapshot this transaction sees.
    public let snapshot: UInt64
    // `init()`, not `[:]`: the literal goes through `init(dictionaryLiteral:)`, at every begin.
    /// Free-form storage for the duration of the transaction (YapDatabase's `userInfo`).
    public var userInfo = [String: any Sendable]()
    @usableFromInline let core: ConnectionCore
    /// The connection's SQLite handle, the same for the transaction's whole life (the connection
    /// swaps it only when it takes the access gate afresh): a `let`, so a statement lookup through
    /// it retains nothing, where `core.sqlite` retained the handle for every row.
    let sqlite: SQLiteConnection
    /// The serializer registry as it was when the transaction began (the connection's copy).
    let configs: ConfigSnapshot
    /// The storage of the last `Data` an uncached typed read handed out, for the next such read.
    ///
    /// The next read writes into it when the caller kept nothing, instead of allocating.
    /// Unchecked like `configs`. Values above ``lentBytesLimit`` are not kept, so a transaction
    /// never holds a large value's storage past its read.
    @exclusivity(unchecked) var lentBytes = Data()
    /// The largest value whose storage is reused for the next read or row.
    ///
    /// Reusing storage the caller kept copies its old contents first (copy on write): a few bytes
    /// for a small value, but a second copy of a large one.
    static let lentBytesLimit = 64 * 1024
    // Unchecked: set once, by `invalidate()` on the connection's queue after the closure returned;
    // read by every call, where the dynamic check cost more than the check itself.
    @exclusivity(unchecked) private(set) var isActive = true
    // Unchecked, the four extension fields: read at every row write and at every begin and end,
    // set only by the transaction's own methods on its connection's queue, each access over
    // before any extension code runs; the dynamic checks cost more than the transaction's own
    // bookkeeping on a small write.
    /// The extensions registered when the transaction began (and those it registered), in
    /// registration order.
    @exclusivity(unchecked) var extensionEntries: [ExtensionRegistry.Entry]
    /// Each extension's object for this transaction, created on first use.
    @exclusivity(unchecked) var extensionTransactions = [String: any ExtensionTransaction]()
    /// The answer of ``hookReceivers(forCollection:)`` for the collection it was last asked about.
    @exclusivity(unchecked) var keptHookReceivers: (collection: String, receivers: [any ExtensionTransaction])?
    /// The contexts handed to the extensions' objects, which close their memory views with the transaction.
    @exclusivity(unchecked) var extensionContexts: [ExtensionContext] = []

    init(connection: Connection, core: ConnectionCore, snapshot: UInt64) {
        self.connection = connection
        self.core = core
        self.sqlite = core.sqlite
        self.snapshot = snapshot
        self.configs = core.currentConfigs()
        self.extensionEntries = connection.database.extensionEntries
    }

    /// Ends the transaction's validity and releases the extensions' objects (which refer back to it).
    func invalidate() {
        isActive = false
        for context in extensionContexts { context.endMemoryViews() }
        extensionContexts.removeAll()
        extensionTransactions.removeAll()
        keptHookReceivers = nil
        lentBytes = Data()
    }

    @inline(__always)
    func checkActive() throws {
        guard isActive else {
            throw DatabaseError(.misuse, "the transaction was used after its closure returned")
        }
    }

    // MARK: Counts and lists

    /// The number of collections that hold at least one row.
    /// - Complexity: O(n) over the index.
    public func numberOfCollections() throws -> Int {
        try checkActive()
        return try mapSQLite { Int(try scalar(SQL.countCollections) ?? 0) }
    }

    /// The number of rows in `collection`.
    public func numberOfKeys(inCollection collection: String?) throws -> Int {
        try checkActive()
        return try mapSQLite { Int(try scalar(SQL.countKeysInCollection, collection ?? "") ?? 0) }
    }

    /// The number of rows in the whole database.
    public func numberOfKeysInAllCollections() throws -> Int {
        try checkActive()
        return try mapSQLite { Int(try scalar(SQL.countAllKeys) ?? 0) }
    }

    /// Every collection that holds at least one row.
    public func allCollections() throws -> [String] {
        var result: [String] = []
        try enumerateCollections { collection, _ in result.append(collection) }
        return result
    }

    /// Every key of `collection`.
    public func allKeys(inCollection collection: String?) throws -> [String] {
        var result: [String] = []
        try enumerateKeys(inCollection: collection) { key, _ in result.append(key) }
        return result
    }

    // MARK: Single rows

    /// Whether a row exists for `key` in `collection`.
    ///
    /// Uses the cache when it can.
    public func hasObject(forKey key: String, inCollection collection: String?) throws -> Bool {
        try checkActive()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        if core.objectCache.contains(ck) { return true }
        return try rowid(for: ck) != nil
    }

    /// The object stored for `key` in `collection`, deserialized by the collection's chain.
    ///
    /// Collections without a registered codec return an ``EncodedValue`` — on every connection,
    /// the one that wrote the row included, whatever it has cached — since the stored JSON cannot
    /// say which type was written: use the typed `object(forKey:inCollection:as:)` to decode it.
    /// - Throws: ``DatabaseError`` `.serialization` (naming collection and key) when the stored
    ///   bytes do not decode; any other ``DatabaseError`` from reading.
    public func object(forKey key: String, inCollection collection: String?) throws -> (any Sendable)? {
        if let cached = try cachedObject(forKey: key, inCollection: collection) { return cached }
        return try loadObject(CollectionKey(collection: collection ?? "", key: key))
    }

    /// The object stored for `key` in `collection`, as `T`.
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the stored object is not a `T`.
    public func object<T>(forKey key: String, inCollection collection: String?, as type: T.Type) throws -> T? {
        guard let value = try object(forKey: key, inCollection: collection) else { return nil }
        return try cast(value, to: T.self, CollectionKey(collection: collection ?? "", key: key))
    }

    /// The object stored for `key` in `collection`, as `T`; decodes ``EncodedValue``s as JSON.
    /// - Throws: ``DatabaseError`` `.typeMismatch` or `.serialization`.
    @inlinable
    public final func object<T: Decodable & Sendable>(
        forKey key: String, inCollection collection: String?, as type: T.Type
    ) throws -> T? {
        // Inlined into the caller (hence final: a class method is otherwise called through the
        // vtable), so that this code is specialized for T: the generic version looks up
        // `Optional<T>`'s metadata at run time on every call. A cache hit of exactly T is a
        // comparison of metadata pointers and one copy of the value, read where its box keeps it.
        if T.self == Data.self, !core.config.objectCacheEnabled {
            // Stored bytes handed out as they are: a non-generic read, no boxing, no cast.
            switch try uncachedBytes(forKey: key, inCollection: collection) {
            case .bytes(let data): return unsafeBitCast(data, to: T.self)
            case .absent: return nil
            case .general: return try object(forKey: key, inCollection: collection, as: type, cached: nil)
            }
        }
        if let slot = try cachedObjectSlot(forKey: key, inCollection: collection) {
            var other: (any Sendable)?
            let typed: T? = core.objectCache.withValue(atSlot: slot) { box in
                if let value = box.value(ifExactly: T.self) { return value }
                other = box.object
                return nil
            }
            // Consumed, not copied: a copy of `T?` and its destruction cost as much as the read.
            if case .some(let value) = consume typed { return value }
            return try object(forKey: key, inCollection: collection, as: type, cached: other)
        }
        return try object(forKey: key, inCollection: collection, as: type, cached: nil)
    }

    /// The cache slot of the object cached for `key` in `collection`, marked most recently used,
    /// when this connection's object cache is on and holds one (counting a hit or a miss); read it
    /// at once with `Cache.withValue(atSlot:_:)`.
    /// - Throws: ``DatabaseError`` `.misuse` when the transaction has ended.
    @usableFromInline
    final func cachedObjectSlot(forKey key: String, inCollection collection: String?) throws -> Int32? {
        try checkActive()
        guard core.config.objectCacheEnabled else { return nil }
        // Not `collection ?? ""`, which returns an owned copy: a key built from it owns both
        // strings (a retain and a release each), one built from the borrowed strings borrows them.
        guard let collection else { return core.objectCache.touch(CollectionKey(collection: "", key: key)) }
        return core.objectCache.touch(CollectionKey(collection: collection, key: key))
    }

    /// What ``uncachedBytes(forKey:inCollection:)`` found.
    @usableFromInline
    enum UncachedBytes {
        /// The row's stored bytes, which are its object.
        case bytes(Data)
        /// No such row.
        case absent
        /// The collection's chain does not store `Data` as it is: read through the general path.
        case general
    }

    /// The stored bytes of the row when its collection keeps `Data` objects as they are (for a
    /// connection whose object cache is off), written into the storage of the transaction's
    /// previous such read when the caller kept nothing.
    /// - Throws: ``DatabaseError`` `.misuse` when the transaction has ended; any other from reading.
    @usableFromInline
    final func uncachedBytes(forKey key: String, inCollection collection: String?) throws -> UncachedBytes {
        try checkActive()
        // Borrowed, not `collection ?? ""`, which returns an owned copy (a retain and a release).
        guard let collection else { return try uncachedBytes(forKey: key, in: "") }
        return try uncachedBytes(forKey: key, in: collection)
    }

    private func uncachedBytes(forKey key: String, in collection: String) throws -> UncachedBytes {
        guard configs.storesDataAsIs(collection) else { return .general }
        guard try fetchColumn(SQL.dataForKey, collection: collection, key: key, into: &lentBytes) else {
            return .absent
        }
        defer { Self.releaseIfLarge(&lentBytes) }
        return .bytes(lentBytes)
    }

    /// The object cached for `key` in `collection` when this connection's object cache is on
    /// (counting a hit or a miss), nil otherwise.
    /// - Throws: ``DatabaseError`` `.misuse` when the transaction has ended.
    @usableFromInline
    func cachedObject(forKey key: String, inCollection collection: String?) throws -> (any Sendable)? {
        try checkActive()
        guard core.config.objectCacheEnabled else { return nil }
        return core.objectCache.object(forKey: CollectionKey(collection: collection ?? "", key: key))
    }

    /// The typed read past the cache hit of the inlined `object(forKey:inCollection:as:)`: `cached` is what
    /// the cache gave it (not a `T`), or nil when it gave nothing.
    @usableFromInline
    func object<T: Decodable & Sendable>(
        forKey key: String, inCollection collection: String?, as type: T.Type, cached: (any Sendable)?
    ) throws -> T? {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        let value: any Sendable
        if let cached {
            value = cached
        } else if core.config.objectCacheEnabled {
            guard let loaded = try loadObject(ck) else { return nil }
            if let typed = loaded as? T { return typed }
            value = loaded
        } else {
            // Uncached reads decode straight into T when the collection's codec produces T.
            // Through the shared config object: copying the chain out retained all its parts per read.
            // (`Data` stored as is never comes here: the inlined caller reads it with `uncachedBytes`.)
            let config = configs.config(for: ck.collection)
            let read = config.objectChain.directRead(as: T.self)
            guard let data = try fetchColumn(SQL.dataForKey, ck) else { return nil }
            return try decodeObject(
                data, as: T.self, chain: config.objectChain, read, collection: ck.collection, key: ck.key)
        }
        // The cache keeps the EncodedValue, not `typed`: an untyped read must still return it.
        return try castDecoding(value, to: T.self, ck)
    }

    /// Reads and decodes the row's object from the database, and caches it when the cache is on.
    private func loadObject(_ ck: CollectionKey) throws -> (any Sendable)? {
        guard let data = try fetchColumn(SQL.dataForKey, ck) else { return nil }
        let object = try decodeObject(data, ck)
        if core.config.objectCacheEnabled { core.objectCache.setObject(object, forKey: ck) }
        return object
    }

    /// The metadata stored for `key` in `collection` (nil when the row has none or does not exist).
    /// - Throws: ``DatabaseError`` `.serialization` when the stored bytes do not decode.
    public func metadata(forKey key: String, inCollection collection: String?) throws -> (any Sendable)? {
        try checkActive()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        if core.config.metadataCacheEnabled, let cached = core.metadataCache.value(forKey: ck) { return cached }
        var found = false
        let data = try fetchColumn(SQL.metadataForKey, ck, found: &found)
        guard found else { return nil }
        let metadata = try data.map { try decodeMetadata($0, ck) }
        if core.config.metadataCacheEnabled { core.metadataCache.setValue(metadata, forKey: ck) }
        return metadata
    }

    /// The metadata stored for `key` in `collection`, as `T`.
    /// - Throws: ``DatabaseError`` `.typeMismatch` when the stored metadata is not a `T`.
    public func metadata<T>(forKey key: String, inCollection collection: String?, as type: T.Type) throws -> T? {
        guard let value = try metadata(forKey: key, inCollection: collection) else { return nil }
        return try cast(value, to: T.self, CollectionKey(collection: collection ?? "", key: key))
    }

    /// The metadata stored for `key` in `collection`, as `T`; decodes ``EncodedValue``s as JSON.
    public func metadata<T: Decodable & Sendable>(
        forKey key: String, inCollection collection: String?, as type: T.Type
    ) throws -> T? {
        guard let value = try metadata(forKey: key, inCollection: collection) else { return nil }
        return try castDecoding(value, to: T.self, CollectionKey(collection: collection ?? "", key: key))
    }

    /// The object and metadata of one row, or nil when the row does not exist.
    public func objectAndMetadata(
        forKey key: String, inCollection collection: String?
    ) throws -> (object: any Sendable, metadata: (any Sendable)?)? {
        guard let object = try object(forKey: key, inCollection: collection) else { return nil }
        return (object, try metadata(forKey: key, inCollection: collection))
    }

    /// The stored bytes of the object, exactly as the chain produced them (no decoding).
    public func serializedObject(forKey key: String, inCollection collection: String?) throws -> Data? {
        try checkActive()
        return try fetchColumn(SQL.dataForKey, CollectionKey(collection: collection ?? "", key: key))
    }

    /// The stored bytes of the metadata (no decoding).
    public func serializedMetadata(forKey key: String, inCollection collection: String?) throws -> Data? {
        try checkActive()
        return try fetchColumn(SQL.metadataForKey, CollectionKey(collection: collection ?? "", key: key))
    }

    /// The stored bytes of object and metadata, or nil when the row does not exist.
    public func serializedObjectAndMetadata(
        forKey key: String, inCollection collection: String?
    ) throws -> (object: Data, metadata: Data?)? {
        try checkActive()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        return try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try sqlite.cachedStatement(SQL.rowForKey)
            defer { stmt.reset() }
            try stmt.bind(ck.collection, at: 1)
            try stmt.bind(ck.key, at: 2)
            guard try stmt.step() else { return nil }
            return (stmt.data(1) ?? Data(), stmt.data(2))
        }
    }
}

@available(*, unavailable, message: "a transaction is valid only inside its closure, on its connection's queue")
extension ReadTransaction: Sendable {}
