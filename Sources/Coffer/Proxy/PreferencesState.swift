/// What ``Preferences`` knows about one key.
struct PreferencesEntry {
    /// The current value; nil after a removal (the entry stays to remember `localVersion`).
    var value: PreferenceValue?
    /// The proxy version of this instance's last change to the key (0: never changed here).
    var localVersion: UInt64 = 0
    /// Whether the key waits in `PreferencesState.notifyKeys`.
    var notifyPending = false
}

/// Everything a ``Preferences`` instance keeps behind its mutex.
struct PreferencesState {
    var entries: [String: PreferencesEntry] = [:]
    var registered: [String: PreferenceValue] = [:]
    /// Every change this instance made up to this proxy version is committed.
    var committedLocalVersion: UInt64 = 0
    /// Keys changed locally and not yet announced, in order.
    var notifyKeys: [String] = []
    var deliveryScheduled = false
    var streams: [UInt64: AsyncStream<PreferencesChange>.Continuation] = [:]
    var nextStreamID: UInt64 = 1

    /// The value a getter sees: the stored one, else the registered default.
    @inline(__always)
    func value(forKey key: String) -> PreferenceValue? {
        if let entry = entries[key], let value = entry.value { return value }
        return registered[key]
    }

    /// Records a local change; returns whether an announcement must be scheduled.
    mutating func noteLocal(_ value: PreferenceValue?, forKey key: String, version: UInt64) -> Bool {
        let wasPending = Self.update(&entries[key, default: PreferencesEntry()], value, version)
        if !wasPending { notifyKeys.append(key) }
        guard !deliveryScheduled else { return false }
        deliveryScheduled = true
        return true
    }

    @inline(__always)
    private static func update(_ entry: inout PreferencesEntry, _ value: PreferenceValue?, _ version: UInt64) -> Bool {
        entry.value = value
        entry.localVersion = version
        let wasPending = entry.notifyPending
        entry.notifyPending = true
        return wasPending
    }

    /// Takes the keys waiting to be announced.
    mutating func takeNotifyKeys() -> Set<String> {
        deliveryScheduled = false
        var keys = Set<String>()
        keys.reserveCapacity(notifyKeys.count)
        for key in notifyKeys {
            entries[key]?.notifyPending = false
            keys.insert(key)
        }
        notifyKeys.removeAll(keepingCapacity: true)
        return keys
    }
}
