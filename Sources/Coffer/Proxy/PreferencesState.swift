/// What ``Preferences`` knows about one key.
struct PreferencesEntry {
    /// The version a local change has until it is handed to the proxy.
    static let unstaged = UInt64.max
    /// The version of a change being handed to the proxy (still newer than any committed one).
    static let staging = UInt64.max - 1

    /// The current value; nil after a removal (the entry stays to remember `localVersion`).
    var value: PreferenceValue?
    /// The proxy version of this instance's last change to the key: 0 when never changed here,
    /// ``unstaged`` while the change waits to be handed to the proxy.
    var localVersion: UInt64 = 0
    /// The `PreferencesState.listGeneration` in which the key was last listed in `changedKeys`:
    /// the key is listed when it equals the current generation, so taking the list is O(1).
    var listedIn: UInt64 = 0
}

/// Everything a ``Preferences`` instance keeps behind its mutex.
struct PreferencesState {
    var entries: [String: PreferencesEntry] = [:]
    var registered: [String: PreferenceValue] = [:]
    /// Every change this instance made up to this proxy version is committed.
    var committedLocalVersion: UInt64 = 0
    /// Keys changed locally since the last announcement, in order; their changes may still be unstaged.
    var changedKeys: [String] = []
    /// Bumped when the announcement takes `changedKeys`, which unlists every key at once.
    var listGeneration: UInt64 = 1
    var announcementScheduled = false
    var streams: [UInt64: AsyncStream<PreferencesChange>.Continuation] = [:]
    var nextStreamID: UInt64 = 1
    /// The ``Preferences/updates(for:)`` sequences; finishes them when the instance goes.
    let updateSinks = PreferencesUpdateSinks()
    /// Typed keys whose stored value had another type, already logged once.
    var reportedMismatches: Set<String> = []

    /// The value a getter sees: the stored one, else the registered default.
    @inline(__always)
    func value(forKey key: String) -> PreferenceValue? {
        if let entry = entries[key], let value = entry.value { return value }
        return registered[key]
    }

    /// Records a local change; returns whether the hand-off and announcement must be scheduled.
    mutating func noteLocal(_ value: PreferenceValue?, forKey key: String) -> Bool {
        let wasListed = Self.update(&entries[key, default: PreferencesEntry()], value, generation: listGeneration)
        if !wasListed { changedKeys.append(key) }
        guard !announcementScheduled else { return false }
        announcementScheduled = true
        return true
    }

    @inline(__always)
    private static func update(_ entry: inout PreferencesEntry, _ value: PreferenceValue?, generation: UInt64) -> Bool {
        entry.value = value
        entry.localVersion = PreferencesEntry.unstaged
        let wasListed = entry.listedIn == generation
        entry.listedIn = generation
        return wasListed
    }

    /// Marks the unstaged changes among `keys` ``PreferencesEntry/staging`` and returns them;
    /// the caller hands them to the proxy outside this lock (getters must not wait for it), then
    /// ``finishHandOff(_:versions:)`` records the versions the proxy gave.
    ///
    /// One hash lookup per key and no allocation per key: this runs while getters wait.
    mutating func beginHandOff(_ keys: ArraySlice<String>) -> [(key: String, value: PreferenceValue?)] {
        var changes: [(key: String, value: PreferenceValue?)] = []
        changes.reserveCapacity(keys.count)
        for key in keys {
            guard let index = entries.index(forKey: key),
                entries.values[index].localVersion == PreferencesEntry.unstaged
            else { continue }
            entries.values[index].localVersion = PreferencesEntry.staging
            changes.append((key, entries.values[index].value))
        }
        return changes
    }

    /// Records the proxy versions of a hand-off; a key changed again meanwhile stays unstaged.
    mutating func finishHandOff(_ changes: [(key: String, value: PreferenceValue?)], versions: [UInt64]) {
        for (change, version) in zip(changes, versions) {
            guard let index = entries.index(forKey: change.key),
                entries.values[index].localVersion == PreferencesEntry.staging
            else { continue }
            entries.values[index].localVersion = version
        }
    }

    /// Takes the keys changed since the last announcement, in O(1): a key changed from now on is
    /// listed again.
    mutating func takeChangedKeys() -> [String] {
        announcementScheduled = false
        listGeneration &+= 1
        defer { changedKeys = [] }
        return changedKeys
    }
}
