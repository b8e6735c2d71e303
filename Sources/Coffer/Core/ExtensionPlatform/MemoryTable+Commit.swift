extension MemoryTable.State {
    /// Publishes a write view's changes as `version`.
    ///
    /// `changes` maps keys to their new value (nil: removed); `clearsAll` removes first every key
    /// `changes` does not name. Only set keys and removed keys that had a value get a version;
    /// when there are none, no version is published and the newest version stays where it was,
    /// so the next database commit may use `version` again.
    mutating func commit(
        writer id: UInt64, _ changes: [Key: Value?], clearsAll: Bool, as version: UInt64
    ) throws(MemoryTableError) {
        try checkWriter(id)
        guard writer?.commit == nil else { throw .alreadyCommitted }
        let latest = max(newestVersion, highestBegunSnapshot)
        guard version > latest else { throw .versionNotIncreasing(version: version, latest: latest) }
        var touched: [Key] = []
        var queued = 0
        var count = counts.last?.count ?? 0
        func record(_ key: Key, _ value: Value?) {
            let entry = MemoryTableVersion(number: version, value: value)
            if rows[key] != nil {
                rows[key]?.append(entry)
                pruneQueue.append(version, key)
                queued += 1
            } else {
                rows[key] = MemoryTableVersionList(entry)
            }
            touched.append(key)
        }
        if clearsAll {
            let cleared = rows.compactMap { key, list in
                list.newest.value != nil && changes[key] == nil ? key : nil
            }
            for key in cleared { record(key, nil) }
            count -= cleared.count
        }
        for (key, value) in changes {
            let wasVisible = rows[key]?.newest.value != nil
            guard value != nil || wasVisible else { continue }
            record(key, value)
            count += (value != nil ? 1 : 0) - (wasVisible ? 1 : 0)
        }
        writer?.commit = CommitRecord(version: version, previousNewest: newestVersion, keys: touched, queued: queued)
        guard !touched.isEmpty else { return }
        retainedVersionCount += touched.count
        counts.append((version, count))
        newestVersion = version
        prune()
    }

    /// Takes back the open writer's commit (its SQLite commit failed) and ends the writer.
    ///
    /// Pruning kept everything the revert shows again: the open writer holds the floor at or
    /// below its base, under the committed version, so each key's newest version before the
    /// commit was still its newest at the floor (or, a removal, equivalent to no version).
    mutating func revertCommit(writer id: UInt64) {
        guard let writer, writer.id == id, let commit = writer.commit else { return }
        if !commit.keys.isEmpty {
            for key in commit.keys {
                rows[key] = rows[key]?.removingNewest()
            }
            retainedVersionCount -= commit.keys.count
            pruneQueue.removeLast(commit.queued)
            counts.removeLast()
            newestVersion = commit.previousNewest
        }
        removeWriter(id)
    }
}
