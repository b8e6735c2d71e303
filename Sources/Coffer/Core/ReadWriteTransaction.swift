import CofferSQLite
public import Dispatch
public import Foundation

/// Reads and writes the database; valid only inside the closure it was passed to.
///
/// Changes become visible to other connections when the closure returns and the transaction
/// commits. Throwing from the closure, or calling ``rollback()``, discards them all.
public final class ReadWriteTransaction: ReadTransaction {
    // Unchecked: only the transaction's own methods touch it, on its connection's queue, and none
    // reenters it, so the dynamic check would only tax every written row.
    @exclusivity(unchecked) var changes = PendingChanges()
    // Unchecked, these two: set by calls that run no other code while they hold them, read at
    // every write and at the commit on the connection's queue.
    @exclusivity(unchecked) private var completions: [(DispatchQueue?, @Sendable () -> Void)] = []
    @exclusivity(unchecked) var isRolledBack = false
    // Unchecked, these four, like the extension fields of `ReadTransaction`: read at every commit,
    // set by single statements on the connection's queue.
    /// The error of a failed extension hook: the transaction then rolls back and throws it.
    @exclusivity(unchecked) var doomingError: (any Error)?
    /// Extensions this transaction unregistered (with their dependents), told once the commit is done.
    @exclusivity(unchecked) var unregisteredImplementations: [(name: String, implementation: any DatabaseExtension)] =
        []
    /// Their names, for the changeset.
    var unregisteredExtensions: Set<String> {
        unregisteredImplementations.isEmpty ? [] : Set(unregisteredImplementations.map(\.name))
    }
    /// Extensions this transaction registered: the commit makes a new snapshot for them.
    @exclusivity(unchecked) var registeredExtensions: [ExtensionRegistration] = []

    /// A value delivered with this commit's ``Changeset`` (YapDatabase's custom notification object).
    @exclusivity(unchecked) public var notificationCustomObject: (any Sendable)? {
        didSet { hasNotificationCustomObject = notificationCustomObject != nil }
    }
    /// Whether ``notificationCustomObject`` is set, known without copying it: every commit asks,
    /// and each copy of an existential goes through its type's value witnesses.
    @exclusivity(unchecked) private(set) var hasNotificationCustomObject = false

    /// Discards every change of this transaction when its closure returns; further writes throw.
    public func rollback() {
        isRolledBack = true
    }

    /// Runs `block` on `queue` (default: a database-owned serial queue) after this transaction commits; blocks run
    /// in the order they were added.
    ///
    /// Not called when it rolls back.
    public func addCompletion(queue: DispatchQueue? = nil, _ block: @escaping @Sendable () -> Void) {
        completions.append((queue, block))
    }

    func runCompletions(in database: Database) {
        for (queue, block) in completions { database.deliverCompletion(on: queue, block) }
        completions = []
    }

    func checkWritable() throws {
        try checkActive()
        guard !isRolledBack else {
            throw DatabaseError(.misuse, "the transaction was rolled back; it cannot write any more")
        }
    }

    // MARK: Set

    /// Stores `object` (and `metadata`) for `key` in `collection`, replacing any existing row.
    ///
    /// A nil object removes the row. The collection's pre-sanitizer runs first (returning nil
    /// removes the row), then its chain serializes the values; the post-sanitizer runs last.
    /// - Throws: ``DatabaseError`` `.serialization` when a value cannot be serialized (nothing is
    ///   written), or any ``DatabaseError`` from writing.
    public func setObject(
        _ object: (any Sendable)?, forKey key: String, inCollection collection: String?,
        withMetadata metadata: (any Sendable)? = nil
    ) throws {
        try setObject(
            object, forKey: key, inCollection: collection, withMetadata: metadata, serializedObject: nil,
            serializedMetadata: nil)
    }

    /// Like ``setObject(_:forKey:inCollection:withMetadata:)``, with bytes already serialized by
    /// the caller (stored as given; the values are cached as given).
    public func setObject(
        _ object: (any Sendable)?, forKey key: String, inCollection collection: String?,
        withMetadata metadata: (any Sendable)?, serializedObject: Data?, serializedMetadata: Data?
    ) throws {
        try checkWritable()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard let object else {
            try removeObject(forKey: key, inCollection: collection)
            return
        }
        let config = configs.config(for: ck.collection)
        guard config.objectPreSanitizer != nil || (metadata != nil && config.metadataPreSanitizer != nil) else {
            try write(object, metadata: metadata, ck, config, serializedObject, serializedMetadata)
            return
        }
        var sanitizedObject = object
        if let sanitize = config.objectPreSanitizer {
            guard let sanitized = sanitize(ck.collection, ck.key, object) else {
                try removeObject(forKey: key, inCollection: collection)
                return
            }
            sanitizedObject = sanitized
        }
        var sanitizedMetadata = metadata
        if let value = metadata, let sanitize = config.metadataPreSanitizer {
            sanitizedMetadata = sanitize(ck.collection, ck.key, value)
        }
        try write(sanitizedObject, metadata: sanitizedMetadata, ck, config, serializedObject, serializedMetadata)
    }

    /// Stores a sanitized row.
    ///
    /// Takes its values borrowed and copies them only where they are kept (caches, the share
    /// policy's changeset): a bulk write used to copy each existential a dozen times.
    private func write(
        _ object: borrowing any Sendable, metadata: borrowing (any Sendable)?, _ ck: CollectionKey,
        _ config: ResolvedConfig, _ serializedObject: Data?, _ serializedMetadata: Data?
    ) throws {
        let (data, objectReadBack) = try stored(
            object, serialized: serializedObject, with: config.objectChain, ck, what: "object")
        let metadataData: Data?
        var metadataReadBack: EncodedValue?
        // Tested before the copy: copying even a nil existential goes through its type's value
        // witnesses, and most rows have no metadata.
        if metadata != nil, let value = copy metadata {
            (metadataData, metadataReadBack) = try stored(
                value, serialized: serializedMetadata, with: config.metadataChain, ck, what: "metadata")
        } else {
            metadataData = serializedMetadata
        }
        let hooks = hookReceivers(forCollection: ck.collection)
        let inserted: Bool
        var row: ExtensionRow?
        if hooks.isEmpty {
            inserted = try insertOrUpdate(ck, data: data, metadata: metadataData)
        } else {
            // Extensions need to know before the write whether it inserts or updates.
            let existing = try existingRowid(ck)
            let hookObject: any Sendable = Self.either(objectReadBack, object)
            let hookRow = ExtensionRow(
                collectionKey: ck, rowid: existing ?? 0, object: LazyValue(hookObject),
                metadata: LazyValue(Self.either(metadataReadBack, metadata)))
            row = hookRow
            try runHooks(hooks) { hook in try existing == nil ? hook.willInsert(hookRow) : hook.willUpdate(hookRow) }
            inserted = try mapSQLite(collection: ck.collection, key: ck.key) { () throws -> Bool in
                if let rowid = existing {
                    let stmt = try sqlite.cachedStatement(SQL.updateAll)
                    try stmt.bind(data, at: 1)
                    try stmt.bind(metadataData, at: 2)
                    try stmt.bind(rowid, at: 3)
                    try stmt.run()
                    return false
                }
                guard try insertRow(ck, data: data, metadata: metadataData) else {
                    throw Self.neitherInsertedNorUpdated(ck)
                }
                return true
            }
        }
        let rowid = sqlite.lastInsertRowID
        core.mutationCount &+= 1
        changes.hasDiskChanges = true
        // The caches hold the new values before the did-hooks run, so a hook that reads the row
        // back through the transaction (a filtered view, say) sees what was written.
        if core.config.objectCacheEnabled {
            core.objectCache.setObject(Self.either(objectReadBack, object), forKey: ck)
        }
        if core.config.metadataCacheEnabled {
            core.metadataCache.setValue(Self.either(metadataReadBack, metadata), forKey: ck)
        }
        if let hookRow = row {
            let finalRow =
                inserted
                ? ExtensionRow(collectionKey: ck, rowid: rowid, object: hookRow.object, metadata: hookRow.metadata)
                : hookRow
            try runHooks(hooks) { hook in try inserted ? hook.didInsert(finalRow) : hook.didUpdate(finalRow) }
        }
        if config.objectPolicy == .containment && config.metadataPolicy == .containment {
            // The default policies: the record is two tags, no update values to build and copy.
            changes.recordEvictingWrite(ck, inserted: inserted)
        } else {
            let objectUpdate: CacheUpdate
            if let objectReadBack {
                objectUpdate = CacheUpdate.forWrite(objectReadBack, policy: config.objectPolicy)
            } else {
                objectUpdate = CacheUpdate.forWrite(object, policy: config.objectPolicy)
            }
            let metadataUpdate: CacheUpdate
            if let metadataReadBack {
                metadataUpdate = CacheUpdate.forWrite(metadataReadBack, policy: config.metadataPolicy)
            } else {
                metadataUpdate = CacheUpdate.forWrite(metadata, policy: config.metadataPolicy)
            }
            changes.recordWrite(ck, object: objectUpdate, metadata: metadataUpdate, inserted: inserted)
        }
        if let postSanitize = config.objectPostSanitizer { postSanitize(ck.collection, ck.key, copy object) }
        if let postSanitize = config.metadataPostSanitizer, let value = copy metadata {
            postSanitize(ck.collection, ck.key, value)
        }
    }

    // MARK: Replace

    /// Replaces the object of an existing row, keeping its metadata; does nothing when the row does not exist.
    ///
    /// A nil object removes the row.
    /// - Throws: ``DatabaseError`` `.serialization` or any error from writing.
    public func replaceObject(_ object: (any Sendable)?, forKey key: String, inCollection collection: String?) throws {
        try checkWritable()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard var object else {
            try removeObject(forKey: key, inCollection: collection)
            return
        }
        guard let rowid = try existingRowid(ck) else { return }
        let config = configs.config(for: ck.collection)
        if let sanitize = config.objectPreSanitizer {
            guard let sanitized = sanitize(ck.collection, ck.key, object) else {
                try removeObject(forKey: key, inCollection: collection)
                return
            }
            object = sanitized
        }
        let (data, readBack) = try stored(object, serialized: nil, with: config.objectChain, ck, what: "object")
        let cached: any Sendable = readBack ?? object
        let hooks = hookReceivers(forCollection: ck.collection)
        let row = ExtensionRow(
            collectionKey: ck, rowid: rowid, object: LazyValue(cached),
            metadata: lazyMetadata(ck))
        try runHooks(hooks) { hook in try hook.willReplaceObject(row) }
        try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try sqlite.cachedStatement(SQL.updateData)
            try stmt.bind(data, at: 1)
            try stmt.bind(rowid, at: 2)
            try stmt.run()
        }
        core.mutationCount &+= 1
        changes.hasDiskChanges = true
        if core.config.objectCacheEnabled { core.objectCache.setObject(cached, forKey: ck) }
        try runHooks(hooks) { hook in try hook.didReplaceObject(row) }
        let objectUpdate = CacheUpdate.forWrite(cached, policy: config.objectPolicy)
        changes.updateRow(ck) { $0.object = objectUpdate }
        config.objectPostSanitizer?(ck.collection, ck.key, object)
    }

    /// Replaces the metadata of an existing row, keeping its object; does nothing when the row does not exist.
    ///
    /// Nil clears the metadata.
    /// - Throws: ``DatabaseError`` `.serialization` or any error from writing.
    public func replaceMetadata(
        _ metadata: (any Sendable)?, forKey key: String, inCollection collection: String?
    ) throws {
        try checkWritable()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard let rowid = try existingRowid(ck) else { return }
        let config = configs.config(for: ck.collection)
        var metadata = metadata
        if let value = metadata, let sanitize = config.metadataPreSanitizer {
            metadata = sanitize(ck.collection, ck.key, value)
        }
        var data: Data?
        var cached = metadata
        if let value = metadata {
            let (bytes, readBack) = try stored(
                value, serialized: nil, with: config.metadataChain, ck, what: "metadata")
            data = bytes
            if let readBack { cached = readBack }
        }
        let hooks = hookReceivers(forCollection: ck.collection)
        let row = ExtensionRow(
            collectionKey: ck, rowid: rowid,
            object: lazyObject(ck),
            metadata: LazyValue(cached))
        try runHooks(hooks) { hook in try hook.willReplaceMetadata(row) }
        try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try sqlite.cachedStatement(SQL.updateMetadata)
            try stmt.bind(data, at: 1)
            try stmt.bind(rowid, at: 2)
            try stmt.run()
        }
        core.mutationCount &+= 1
        changes.hasDiskChanges = true
        if core.config.metadataCacheEnabled { core.metadataCache.setValue(cached, forKey: ck) }
        try runHooks(hooks) { hook in try hook.didReplaceMetadata(row) }
        let metadataUpdate = CacheUpdate.forWrite(cached, policy: config.metadataPolicy)
        changes.updateRow(ck) { $0.metadata = metadataUpdate }
        if let metadata { config.metadataPostSanitizer?(ck.collection, ck.key, metadata) }
    }

    // MARK: Helpers

    /// Inserts the row, or updates it when the key exists: one statement for a new key (the unique index finds the
    /// conflict), two for an existing one.
    ///
    /// Returns whether it inserted. A conflict is ignored, not raised: a failed statement would leave an error
    /// message on the SQLite connection, which every later call on it then clears again.
    func insertOrUpdate(_ ck: CollectionKey, data: Data, metadata: Data?) throws -> Bool {
        // Nil when the row neither conflicted nor went in; thrown outside, so the closure stays inlined.
        let inserted = try mapSQLite(collection: ck.collection, key: ck.key) { () throws -> Bool? in
            if core.lastUpsertUpdated {
                if try updateRow(ck, data: data, metadata: metadata) { return false }
                guard try insertRow(ck, data: data, metadata: metadata) else { return nil }
                core.lastUpsertUpdated = false
                return true
            }
            if try insertRow(ck, data: data, metadata: metadata) { return true }
            guard try updateRow(ck, data: data, metadata: metadata) else { return nil }
            core.lastUpsertUpdated = true
            return false
        }
        guard let inserted else { throw Self.neitherInsertedNorUpdated(ck) }
        return inserted
    }

    /// What an upsert throws when its row neither conflicted nor went in, which the schema's
    /// non-null columns (always bound) rule out.
    private static func neitherInsertedNorUpdated(_ ck: CollectionKey) -> DatabaseError {
        DatabaseError(
            .sqlite, "the row could be neither inserted nor updated", collection: ck.collection, key: ck.key,
            sqliteCode: SQLiteError.ResultCode.constraint)
    }

    /// Rewrites the row `ck`; returns whether it existed.
    private func updateRow(_ ck: CollectionKey, data: Data, metadata: Data?) throws -> Bool {
        try writeRow(SQL.updateAllByKey, ck, data: data, metadata: metadata) > 0
    }

    /// Inserts the row unless its key exists; returns whether it inserted.
    private func insertRow(_ ck: CollectionKey, data: Data, metadata: Data?) throws -> Bool {
        try writeRow(SQL.insertIfAbsent, ck, data: data, metadata: metadata) > 0
    }

    /// Runs a row statement and returns the number of rows it changed.
    ///
    /// Its parameters are the collection (1), the key (2), the data (3) and the metadata (4, NULL
    /// when nil). The collection stays bound (a transaction's rows mostly share it); the rest is
    /// lent for the step.
    private func writeRow(_ sql: StaticString, _ ck: CollectionKey, data: Data, metadata: Data?) throws -> Int {
        try sqlite.run(sql, keeping: ck.collection, at: 1, lending: ck.key, at: 2, data, at: 3, metadata, at: 4)
    }

    /// Calls `body` for each extension in registration order.
    ///
    /// A throwing hook dooms the whole transaction: it rolls back even when the caller catches the error.
    func runHooks(_ hooks: [any ExtensionTransaction], _ body: (any ExtensionTransaction) throws -> Void) throws {
        for hook in hooks {
            do {
                try body(hook)
            } catch {
                isRolledBack = true
                if doomingError == nil { doomingError = error }
                throw error
            }
        }
    }

    /// The row's object, deserialized only if a hook asks (a misuse error after the transaction).
    func lazyObject(_ ck: CollectionKey) -> LazyValue {
        LazyValue { [weak self] in
            guard let self else { throw DatabaseError(.misuse, "the transaction of this value has ended") }
            return try self.object(forKey: ck.key, inCollection: ck.collection)
        }
    }

    /// The row's metadata, deserialized only if a hook asks.
    func lazyMetadata(_ ck: CollectionKey) -> LazyValue {
        LazyValue { [weak self] in
            guard let self else { throw DatabaseError(.misuse, "the transaction of this value has ended") }
            return try self.metadata(forKey: ck.key, inCollection: ck.collection)
        }
    }

    /// The row's rowid, or nil when it does not exist.
    func existingRowid(_ ck: CollectionKey) throws -> Int64? {
        try rowid(for: ck)
    }

    /// The bytes to store for `value` (`serialized` when the caller gave them), and what reading
    /// them back gives when that is not `value` itself.
    ///
    /// In a collection without a codec a read gives the ``EncodedValue`` of the JSON on every
    /// connection, so the writer's cache, its siblings and extension hooks are handed that too: a
    /// cached `String` here and an ``EncodedValue`` on a sibling would make the same read return
    /// different types. Bytes the caller serialized that the chain cannot read are kept as given.
    func stored(
        _ value: borrowing any Sendable, serialized: Data?, with chain: SerializerChain, _ ck: CollectionKey,
        what: String
    ) throws -> (Data, readBack: EncodedValue?) {
        guard chain.codec.decodesToEncodedValue else {
            if let serialized { return (serialized, nil) }
            return (try encode(copy value, with: chain, ck, what: what), nil)
        }
        if let serialized {
            return (
                serialized,
                (try? chain.deserialize(serialized, collection: ck.collection, key: ck.key)) as? EncodedValue
            )
        }
        do {
            let (blob, codecBytes) = try chain.serializeKeepingCodecBytes(
                copy value, collection: ck.collection, key: ck.key)
            return (blob, EncodedValue(data: codecBytes))
        } catch {
            throw Self.serializationError(error, "cannot serialize the \(what)", ck)
        }
    }

    /// `readBack` when there is one, else a copy of `value`.
    private static func either(_ readBack: EncodedValue?, _ value: borrowing any Sendable) -> any Sendable {
        if let readBack { return readBack }
        return copy value
    }

    /// `readBack` when there is one, else a copy of `value`.
    private static func either(
        _ readBack: EncodedValue?, _ value: borrowing (any Sendable)?
    ) -> (any Sendable)? {
        if let readBack { return readBack }
        return copy value
    }

    func encode(_ value: any Sendable, with chain: SerializerChain, _ ck: CollectionKey, what: String) throws -> Data {
        do {
            return try chain.serialize(value, collection: ck.collection, key: ck.key)
        } catch {
            throw Self.serializationError(error, "cannot serialize the \(what)", ck)
        }
    }
}
