import CofferSQLite
import Foundation

/// A connection's state that only its serial queue touches: the SQLite handle, the caches
/// and the snapshot they reflect.
@usableFromInline
final class ConnectionCore: @unchecked Sendable {
    // Safety: every member is read and written only on the owning connection's serial queue
    // (or on the thread that holds it through `queue.sync`), never concurrently.
    let database: Database
    let id: UInt64
    /// The connection's handle; replaced when a key rotation swapped the file.
    // Unchecked like `snapshot` below: read by every statement lookup, replaced only between
    // transactions.
    @exclusivity(unchecked) var sqlite: SQLiteConnection
    /// The keying generation `sqlite` was opened with.
    // Unchecked like `snapshot` below: compared at every transaction's begin.
    @exclusivity(unchecked) var handleGeneration: UInt64
    /// Nesting depth of ``withAccess(_:)``: the gate is held while it is above zero.
    @exclusivity(unchecked) var accessDepth = 0
    // Unchecked: every cached read mutates its cache (recency, statistics), always on the
    // connection's queue and never while user code runs, so the dynamic check would only tax
    // the hottest path there is.
    // Usable from inline code: a cached typed read is specialized in its caller.
    @usableFromInline @exclusivity(unchecked) var objectCache: Cache<CollectionKey, CachedObject>
    @exclusivity(unchecked) var metadataCache: Cache<CollectionKey, (any Sendable)?>
    // Unchecked like the caches: read by every cached read, changed only by `applySettings` on
    // the connection's queue.
    @usableFromInline @exclusivity(unchecked) var config: ConnectionConfig
    // Unchecked, these three and `accessDepth`, `lastUpsertUpdated`: plain values read and set at
    // every transaction's begin and commit on the connection's queue, by code that calls out to
    // nothing while it holds them, where each dynamic check costs more than the access itself.
    /// The snapshot the caches reflect.
    @exclusivity(unchecked) var snapshot: UInt64
    /// SQLite's count of changed rows when the current write transaction began: whether a
    /// commit changed rows or only memory (multi-process support writes the two differently).
    @exclusivity(unchecked) var totalChangesAtBegin = 0
    /// Whether a long-lived read transaction holds the SQLite read snapshot open.
    @exclusivity(unchecked) var inLongLivedRead = false
    /// Changesets taken in while ending a long-lived read implicitly; the next begin returns them.
    var stashedChangesets: [Changeset] = []
    /// Bumped by every write that changes rows, so enumerations detect mutation.
    // Unchecked like `ReadWriteTransaction.changes`: touched once per written row, on the
    // connection's queue only.
    @exclusivity(unchecked) var mutationCount = 0
    /// Whether the last upsert found its row: the next one then tries UPDATE before INSERT, so bulk
    /// inserts and rewrites of existing rows each pay for one statement per row.
    @exclusivity(unchecked) var lastUpsertUpdated = false
    /// The copy of the serializer registry this connection's transactions use (see
    /// ``currentConfigs()``).
    // Unchecked like `snapshot`: read and set at every begin, on the connection's queue.
    @exclusivity(unchecked) private var configs: ConfigSnapshot?
    /// Each registered extension's state on this connection, created on first use, with the
    /// registration it was made for.
    var extensionStates: [String: (registration: UInt64, state: any ExtensionConnectionState)] = [:]

    init(
        database: Database, id: UInt64, sqlite: SQLiteConnection, generation: UInt64, config: ConnectionConfig,
        snapshot: UInt64
    ) {
        self.database = database
        self.id = id
        self.sqlite = sqlite
        self.handleGeneration = generation
        self.config = config
        self.snapshot = snapshot
        self.objectCache = Cache(countLimit: config.objectCacheLimit)
        self.metadataCache = Cache(countLimit: config.metadataCacheLimit)
    }

    /// Runs `body` holding the database's access gate, with a handle keyed for the current file.
    func withAccess<T>(_ body: () throws -> T) throws -> T {
        try enterAccess()
        defer { leaveAccess() }
        return try body()
    }

    /// Takes the access gate (re-entrantly) and makes sure the handle matches the current file.
    func enterAccess() throws {
        if accessDepth == 0 {
            try database.gate.enterShared(timeout: database.options.busyTimeout)
            do {
                try refreshHandleIfNeeded()
            } catch {
                database.gate.leaveShared()
                throw error
            }
        }
        accessDepth += 1
    }

    func leaveAccess() {
        accessDepth -= 1
        if accessDepth == 0 { database.gate.leaveShared() }
    }

    /// The registry copy for a transaction beginning now: the kept one, unless a registration
    /// bumped the registry's version since it was taken.
    func currentConfigs() -> ConfigSnapshot {
        if let configs, configs.version == database.registry.version { return configs }
        let fresh = database.registry.snapshot()
        configs = fresh
        return fresh
    }

    /// Reopens the handle when a key rotation replaced the file since it was opened.
    func refreshHandleIfNeeded() throws {
        let generation = database.keyingGeneration.load(ordering: .acquiring)
        guard generation != handleGeneration || sqlite.isClosed else { return }
        let (handle, newGeneration) = try database.openHandle()
        sqlite = handle
        handleGeneration = newGeneration
        for slot in extensionStates.values { slot.state.flushMemory() }
    }

    /// Hands the handle to the database's pool of reusable handles (or closes it).
    func releaseHandle() {
        if inLongLivedRead {
            try? sqlite.execute(SQL.rollback)
            inLongLivedRead = false
            leaveAccess()
        }
        database.enqueueHandle(sqlite, generation: handleGeneration)
    }

    /// Applies cache settings changed through the connection.
    func applySettings(_ new: ConnectionConfig) {
        guard new != config else { return }
        if !new.objectCacheEnabled { objectCache.removeAll() }
        if !new.metadataCacheEnabled { metadataCache.removeAll() }
        objectCache.countLimit = new.objectCacheLimit
        metadataCache.countLimit = new.metadataCacheLimit
        config = new
    }

    /// This connection's state for the registration `entry`; a state left from an earlier
    /// registration under the same name is replaced.
    func extensionState(for entry: ExtensionRegistry.Entry) -> any ExtensionConnectionState {
        if let slot = extensionStates[entry.name], slot.registration == entry.registration.id { return slot.state }
        let state = entry.implementation.makeConnectionState(entry.registration)
        extensionStates[entry.name] = (entry.registration.id, state)
        return state
    }

    func flushCaches() {
        objectCache.removeAll()
        metadataCache.removeAll()
    }

    /// Pins SQLite's read snapshot (the first read of a transaction begun with `BEGIN`) and
    /// returns its number; the gate keeps this process's commits out meanwhile, so the two agree.
    ///
    /// The read is of the snapshot number in `yap2`, which every commit writes under
    /// ``DatabaseOptions/multiProcessSupport``: then it is the transaction's snapshot, and a
    /// number past the database's is another process's commit, which this one adopts (and
    /// announces as an external reset).
    func pinReadSnapshot() throws -> UInt64 {
        let (snapshot, external) = try database.snapshotGate.pin { () throws -> (UInt64, Changeset?) in
            let stored = try storedSnapshot()
            guard database.options.multiProcessSupport, let stored else { return (database.snapshot, nil) }
            // The number SQLite's snapshot holds, not the database's: another process commits
            // outside the gate, and a watcher or a sibling may have adopted a later number already.
            return database.noteExternalCommit(stored, dataSnapshot: try dataSnapshotIfNew(stored))
        }
        database.handOn(external, by: id)
        return snapshot
    }

    /// Under ``DatabaseOptions/multiProcessSupport``, adopts the snapshot number another process
    /// left in the file (called once the write lock is held, so no process can commit meanwhile).
    func adoptExternalCommits() throws {
        guard database.options.multiProcessSupport, let stored = try storedSnapshot() else { return }
        let (_, external) = database.noteExternalCommit(stored, dataSnapshot: try dataSnapshotIfNew(stored))
        database.handOn(external, by: id)
    }

    /// The file's data snapshot (`SQL.readDataSnapshot`, 0 when missing) when `stored` is past
    /// the database's number, in the transaction that read `stored`; nil otherwise (the second
    /// read is needed only then).
    private func dataSnapshotIfNew(_ stored: UInt64) throws -> UInt64? {
        guard stored > database.snapshot else { return nil }
        return try mapSQLite { () throws -> UInt64 in
            let stmt = try sqlite.cachedStatement(SQL.readDataSnapshot)
            defer { stmt.reset() }
            return try stmt.step() ? UInt64(bitPattern: stmt.int64(0)) : 0
        }
    }

    /// The snapshot number in `yap2` (nil in a file that never saved one); read as a read
    /// transaction's first statement, it pins SQLite's snapshot.
    private func storedSnapshot() throws -> UInt64? {
        try mapSQLite { () throws -> UInt64? in
            let stmt = try sqlite.cachedStatement(SQL.pinRead)
            defer { stmt.reset() }
            return try stmt.step() ? UInt64(bitPattern: stmt.int64(0)) : nil
        }
    }

    /// Writes `snapshot` to `yap2` in the open write transaction, so other processes see the
    /// commit (``DatabaseOptions/multiProcessSupport`` only), and as the data snapshot too when
    /// the commit changed rows (`changedRows`), so they can tell it from one that only rebuilt
    /// memory.
    ///
    /// Skipped while no other process has the file open: the row sits on a page nothing else in
    /// a small commit writes, and encrypting that page is most of what the option costs a
    /// commit. A process that opens the file later waits for this commit and then writes a
    /// number past any this one may have used meanwhile (`Database.announceOpening`).
    func recordSnapshotForOtherProcesses(_ snapshot: UInt64, changedRows: Bool) throws {
        guard database.options.multiProcessSupport, database.presenceLock.isShared else { return }
        try mapSQLite {
            try writeYapNumber(snapshot, key: SQL.snapshotKey, update: SQL.updateSnapshot)
            if changedRows { try writeYapNumber(snapshot, key: SQL.dataSnapshotKey, update: SQL.updateDataSnapshot) }
        }
    }

    /// Updates one of the core's `yap2` numbers in place, inserting the row when missing.
    private func writeYapNumber(_ value: UInt64, key: String, update: StaticString) throws {
        let updating = try sqlite.cachedStatement(update)
        try updating.bind(Int64(bitPattern: value), at: 1)
        try updating.run()
        guard sqlite.changes == 0 else { return }
        let stmt = try sqlite.cachedStatement(SQL.yapSet)
        try stmt.bind(SQL.snapshotExtension, at: 1)
        try stmt.bind(key, at: 2)
        try stmt.bind(Int64(bitPattern: value), at: 3)
        try stmt.run()
    }

    /// Brings the caches from `snapshot` to `target` and returns the changesets applied.
    @discardableResult
    func catchUp(to target: UInt64) -> [Changeset] {
        guard target > snapshot else { return [] }
        defer { snapshot = target }
        guard let changesets = database.changesets(after: snapshot, through: target) else {
            // Some changesets are no longer retained: the caches cannot be patched, so start over,
            // and say so to extensions and to whoever asked for the changesets.
            flushCaches()
            for slot in extensionStates.values { slot.state.reset() }
            database.logger.warning(
                "Coffer: a connection fell too far behind; its caches were flushed and its extensions reset",
                metadata: ["connection": "\(id)"])
            return [Changeset(resetTo: target)]
        }
        for changeset in changesets { apply(changeset) }
        return changesets
    }

    /// Between transactions: follow the latest commit unless a long-lived read pins the snapshot.
    func catchUpIdle() {
        guard !inLongLivedRead else { return }
        catchUp(to: database.snapshot)
        database.state.withLock { $0.noteConnection(id, at: snapshot) }
    }

    /// Updates the caches for one sibling commit, per object policy (YapDatabase's `processChangeset`).
    func apply(_ changeset: Changeset) {
        if changeset.isReset {
            // Another process's commits: nothing cached can be trusted, nor any extension state.
            flushCaches()
            for slot in extensionStates.values { slot.state.reset() }
            return
        }
        for name in changeset.unregisteredExtensions { extensionStates[name] = nil }
        for (name, slot) in extensionStates {
            guard let changes = changeset.extensionChanges[name], !slot.state.deliver(changes) else { continue }
            database.logger.warning(
                "Coffer: an extension's changeset part is not of the type its connection state takes; it was dropped",
                metadata: ["extension": "\(name)", "type": "\(type(of: changes))"])
        }
        // Nothing cached, nothing to patch; walking the rows would also fold the changeset's row list.
        guard !(objectCache.isEmpty && metadataCache.isEmpty) else { return }
        if changeset.allKeysRemoved {
            flushCaches()
        } else {
            if !changeset.removedCollections.isEmpty {
                let removed = changeset.removedCollections
                objectCache.removeAll { ck, _ in removed.contains(ck.collection) }
                metadataCache.removeAll { ck, _ in removed.contains(ck.collection) }
            }
            objectCache.removeValues(forKeys: changeset.removedKeys)
            metadataCache.removeValues(forKeys: changeset.removedKeys)
        }
        for (ck, change) in changeset.rows.changes {
            if let update = change.object { applyToObjectCache(update, ck) }
            if let update = change.metadata { applyToMetadataCache(update, ck) }
        }
    }

    private func applyToObjectCache(_ update: CacheUpdate, _ ck: CollectionKey) {
        switch update {
        case .touch: break
        case .evict: objectCache.removeValue(forKey: ck)
        case .set(let value):
            if objectCache.contains(ck), let value { objectCache.setObject(value, forKey: ck) }
        case .copy(let value):
            if objectCache.contains(ck) { objectCache.setObject(value.copy(), forKey: ck) }
        }
    }

    private func applyToMetadataCache(_ update: CacheUpdate, _ ck: CollectionKey) {
        switch update {
        case .touch: break
        case .evict: metadataCache.removeValue(forKey: ck)
        case .set(let value):
            if metadataCache.contains(ck) { metadataCache.setValue(value, forKey: ck) }
        case .copy(let value):
            if metadataCache.contains(ck) { metadataCache.setValue(value.copy(), forKey: ck) }
        }
    }
}
