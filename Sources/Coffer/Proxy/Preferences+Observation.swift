import Foundation

/// Change announcements and keeping memory current with other writers' commits.
extension Preferences {
    /// Every change from now on, as an asynchronous sequence.
    ///
    /// Covers local sets (coalesced) and commits of other writers to the suite. Each access
    /// returns a new, independent sequence; it ends when the instance is released.
    public var changes: AsyncStream<PreferencesChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PreferencesChange.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            let id = state.nextStreamID
            state.nextStreamID += 1
            state.streams[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Runs on the delivery queue: hands the keys set locally to the proxy and announces them.
    func announceLocalChanges() {
        let keys = handOff(takingChangedKeys: true)
        guard !keys.isEmpty else { return }
        publish(PreferencesChange(keys: Set(keys), isExternal: false))
    }

    private func publish(_ change: PreferencesChange) {
        let (streams, sinks) = state.withLock { state in
            (Array(state.streams.values), Array(state.updateSinks.sinks.values))
        }
        NotificationCenter.default.post(
            name: Self.didChangeNotification, object: self,
            userInfo: [Self.changedKeysKey: change.keys, Self.isExternalKey: change.isExternal])
        for stream in streams { stream.yield(change) }
        for sink in sinks { sink.deliver(change) }
    }

    /// Subscribes `observer` to the database's commits: ``Database/modifiedNotification`` is
    /// posted in commit order on a dispatch queue, so keeping memory current never depends on
    /// Swift concurrency's thread pool.
    static func subscribe(_ observer: PreferencesObserver, to database: Database) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: nil, queue: nil
        ) { [weak database] notification in
            guard let database, notification.object as AnyObject? === database,
                let changeset = notification.userInfo?[Database.changesetKey] as? Changeset
            else { return }
            observer.receive(changeset)
        }
    }

    /// Hands a changeset to the delivery queue (called in commit order).
    func enqueue(_ changeset: Changeset) {
        deliveryQueue.async { [weak self] in self?.observe(changeset) }
    }

    /// Applies one committed changeset, in commit order, on the delivery queue.
    ///
    /// The proxy's own commits only advance `committedLocalVersion`: memory already holds their
    /// values (or newer ones). For other writers' commits the touched keys are read back; a key
    /// this instance changed after its last commit keeps the local value, because the proxy's
    /// pending write will overwrite the database.
    func observe(_ changeset: Changeset) {
        let collection = collection
        if let commit = changeset.customObject as? ConnectionProxyCommit, commit.proxyID == proxy.id {
            state.withLock { $0.committedLocalVersion = max($0.committedLocalVersion, commit.version) }
            return
        }
        let reloadAll = changeset.clears(collection)
        var touched = Set<String>()
        for ck in changeset.objectChanges where ck.collection == collection { touched.insert(ck.key) }
        for ck in changeset.removedKeys where ck.collection == collection { touched.insert(ck.key) }
        guard reloadAll || !touched.isEmpty else { return }
        let fetched: [String: PreferenceValue]
        do {
            fetched = try proxy.readConnection.read { tx in
                var values: [String: PreferenceValue] = [:]
                if reloadAll {
                    try tx.enumerateKeysAndObjects(inCollection: collection, as: PreferenceValue.self) {
                        key, value, _ in
                        values[key] = value
                    }
                } else {
                    for key in touched {
                        values[key] = try tx.object(forKey: key, inCollection: collection, as: PreferenceValue.self)
                    }
                }
                return values
            }
        } catch {
            database.options.logger?.warning(
                "Coffer: preferences could not read another writer's change; keeping the values in memory",
                metadata: ["collection": "\(collection)", "error": "\(error)"])
            return
        }
        let changed = state.withLock { state -> Set<String> in
            let candidates = reloadAll ? Set(state.entries.keys).union(fetched.keys) : touched
            var changed = Set<String>()
            for key in candidates {
                let newValue = fetched[key]
                let entry = state.entries[key]
                if let entry, entry.localVersion > state.committedLocalVersion { continue }
                guard entry?.value != newValue else { continue }
                state.entries[key, default: PreferencesEntry()].value = newValue
                changed.insert(key)
            }
            return changed
        }
        guard !changed.isEmpty else { return }
        publish(PreferencesChange(keys: changed, isExternal: true))
    }
}
