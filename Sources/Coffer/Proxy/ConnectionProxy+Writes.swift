/// Changes: recorded in memory at once, written by the next batch.
///
/// None of these wait for the disk. The first change to a clean proxy queues an asynchronous
/// read-write transaction; later changes join whichever batch has not begun yet. Once the
/// database is closed, sets and removals do nothing (logged once).
extension ConnectionProxy {
    /// Stores `object` and `metadata` for `key` in `collection`, replacing the row; a nil object removes it.
    ///
    /// Nil metadata clears the row's metadata, as ``ReadWriteTransaction/setObject(_:forKey:inCollection:withMetadata:)`` does.
    /// - Complexity: O(1); the write happens later in a batch.
    public func setObject(
        _ object: (any Sendable)?, forKey key: String, inCollection collection: String?,
        withMetadata metadata: (any Sendable)? = nil
    ) {
        guard database.isUsable(for: "ConnectionProxy.setObject") else { return }
        stageSet(object, metadata: metadata, CollectionKey(collection: collection ?? "", key: key))
    }

    /// Replaces the object of an existing row and keeps its metadata.
    ///
    /// Does nothing when the row exists neither in the proxy nor in the database. A nil object
    /// removes the row.
    ///
    /// - Complexity: O(1) when the proxy holds a change for the row; otherwise one read
    ///   transaction to learn whether the row exists.
    /// - Throws: ``DatabaseError`` from reading the database; `.closed` once it is closed.
    public func replaceObject(_ object: (any Sendable)?, forKey key: String, inCollection collection: String?) throws {
        try database.gate.checkOpen()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        guard let object else {
            stageRemove(ck)
            return
        }
        try stageReplace(ck) { row, version in
            row.object = .value(object)
            row.objectVersion = version
            row.objectDirty = true
        }
    }

    /// Replaces the metadata of an existing row and keeps its object.
    ///
    /// Does nothing when the row does not exist. Nil clears the metadata.
    ///
    /// - Complexity: O(1) when the proxy holds a change for the row; otherwise one read transaction.
    /// - Throws: ``DatabaseError`` from reading the database; `.closed` once it is closed.
    public func replaceMetadata(
        _ metadata: (any Sendable)?, forKey key: String, inCollection collection: String?
    ) throws {
        try database.gate.checkOpen()
        let ck = CollectionKey(collection: collection ?? "", key: key)
        try stageReplace(ck) { row, version in
            row.metadata = metadata.map { .value($0) } ?? .removed
            row.metadataVersion = version
            row.metadataDirty = true
        }
    }

    /// Removes the row for `key` in `collection`.
    /// - Complexity: O(1); the removal happens later in a batch.
    public func removeObject(forKey key: String, inCollection collection: String?) {
        guard database.isUsable(for: "ConnectionProxy.removeObject") else { return }
        stageRemove(CollectionKey(collection: collection ?? "", key: key))
    }

    /// Removes the rows for `keys` in `collection`.
    /// - Complexity: O(keys); the removals happen later in one batch.
    public func removeObjects(forKeys keys: [String], inCollection collection: String?) {
        guard database.isUsable(for: "ConnectionProxy.removeObjects") else { return }
        let collection = collection ?? ""
        let mustWrite = state.withLock { state -> Bool in
            var mustWrite = false
            for key in keys {
                let queued = Self.stage(CollectionKey(collection: collection, key: key), in: &state) { row, version in
                    Self.markRemoved(&row, version)
                }
                mustWrite = mustWrite || queued
            }
            return mustWrite
        }
        if mustWrite { startWrite() }
    }

    /// Drops the pending change for one row, so reads see the database again.
    ///
    /// A batch already being written still writes it: reset does not undo a write in flight.
    public func reset(key: String, inCollection collection: String?) {
        let ck = CollectionKey(collection: collection ?? "", key: key)
        let released = state.withLock { state -> [FlushWaiter] in
            state.rows[ck] = nil
            if state.rows.isEmpty { state.dirtyKeys.removeAll() }
            return state.releaseWaitersIfSettled()
        }
        for waiter in released { waiter.resume(.success(())) }
    }

    /// Drops every pending change.
    ///
    /// A batch already being written still writes its rows.
    public func reset() {
        let released = state.withLock { $0.resetAll() }
        for waiter in released { waiter.resume(.success(())) }
    }

    // MARK: Staging

    /// Records a set; returns the change's version (used by ``Preferences`` to order its own writes).
    @discardableResult
    func stageSet(_ object: (any Sendable)?, metadata: (any Sendable)?, _ ck: CollectionKey) -> UInt64 {
        guard let object else { return stageRemove(ck) }
        var version: UInt64 = 0
        let mustWrite = state.withLock { state in
            Self.stage(ck, in: &state) { row, newVersion in
                version = newVersion
                row.object = .value(object)
                row.objectVersion = newVersion
                row.objectDirty = true
                row.metadata = metadata.map { .value($0) } ?? .removed
                row.metadataVersion = newVersion
                row.metadataDirty = true
            }
        }
        if mustWrite { startWrite() }
        return version
    }

    /// Records many sets and removals (a nil object) under one lock; returns each change's version,
    /// in order.
    ///
    /// ``Preferences`` hands its bursts over with it.
    func stageBatch(_ changes: [(CollectionKey, (any Sendable)?)]) -> [UInt64] {
        guard !changes.isEmpty else { return [] }
        var versions: [UInt64] = []
        versions.reserveCapacity(changes.count)
        let mustWrite = state.withLock { state -> Bool in
            var mustWrite = false
            for (ck, object) in changes {
                let queued = Self.stage(ck, in: &state) { row, version in
                    versions.append(version)
                    if let object {
                        row.object = .value(object)
                        row.objectVersion = version
                        row.objectDirty = true
                        row.metadata = .removed
                        row.metadataVersion = version
                        row.metadataDirty = true
                    } else {
                        Self.markRemoved(&row, version)
                    }
                }
                mustWrite = mustWrite || queued
            }
            return mustWrite
        }
        if mustWrite { startWrite() }
        return versions
    }

    @discardableResult
    func stageRemove(_ ck: CollectionKey) -> UInt64 {
        var version: UInt64 = 0
        let mustWrite = state.withLock { state in
            Self.stage(ck, in: &state) { row, newVersion in
                version = newVersion
                Self.markRemoved(&row, newVersion)
            }
        }
        if mustWrite { startWrite() }
        return version
    }

    /// Applies `change` when the row exists in the proxy or the database.
    private func stageReplace(_ ck: CollectionKey, _ change: (inout PendingRow, UInt64) -> Void) throws {
        // The row's existence is settled by the proxy when it holds an object change for it.
        let known = state.withLock { state -> Bool? in
            guard let object = state.rows[ck]?.object else { return nil }
            return !object.isRemoved
        }
        let exists: Bool
        if let known {
            exists = known
        } else if fetchedCollectionsFilter.isAllowed(ck.collection) {
            exists = try readConnection.read { tx in try tx.hasObject(forKey: ck.key, inCollection: ck.collection) }
        } else {
            exists = false
        }
        guard exists else { return }
        let mustWrite = state.withLock { state -> Bool in
            // A removal staged while the database was being asked wins.
            if state.rows[ck]?.object?.isRemoved == true { return false }
            return Self.stage(ck, in: &state, change)
        }
        if mustWrite { startWrite() }
    }

    /// Applies `change` to the row under the lock; returns whether a write must be queued.
    static func stage(
        _ ck: CollectionKey, in state: inout ProxyState, _ change: (inout PendingRow, UInt64) -> Void
    ) -> Bool {
        state.version &+= 1
        let version = state.version
        func apply(_ row: inout PendingRow) -> Bool {
            let wasDirty = row.isDirty
            change(&row, version)
            return wasDirty
        }
        // One hash lookup: the row is modified in place.
        let wasDirty = apply(&state.rows[ck, default: PendingRow()])
        return state.noteDirty(ck, wasDirty: wasDirty)
    }

    static func markRemoved(_ row: inout PendingRow, _ version: UInt64) {
        row.object = .removed
        row.objectVersion = version
        row.objectDirty = true
        row.metadata = .removed
        row.metadataVersion = version
        row.metadataDirty = true
    }
}
