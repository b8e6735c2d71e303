public import Foundation

/// Setting and removing values: memory is updated at once and nothing waits for the disk.
///
/// Changes reach the proxy in bursts: a few milliseconds after the first change (or at once on
/// ``Preferences/flush()-7y7c4``), every key changed since is handed over in one pass, so a set costs one
/// lock and one dictionary update.
extension Preferences {
    /// Stores a Boolean.
    /// - Complexity: O(1); written to the database in the next batch.
    public func set(_ value: Bool, forKey key: String) { store(.bool(value), forKey: key) }

    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) { store(.int(value), forKey: key) }

    /// Stores a double.
    public func set(_ value: Double, forKey key: String) { store(.double(value), forKey: key) }

    /// Stores a float.
    public func set(_ value: Float, forKey key: String) { store(.float(value), forKey: key) }

    /// Stores a string.
    public func set(_ value: String, forKey key: String) { store(.string(value), forKey: key) }

    /// Stores bytes.
    public func set(_ value: Data, forKey key: String) { store(.data(value), forKey: key) }

    /// Stores a date.
    public func set(_ value: Date, forKey key: String) { store(.date(value), forKey: key) }

    /// Stores a URL: a file URL as its path (as `UserDefaults` on Linux does), any other URL whole.
    public func set(_ value: URL, forKey key: String) {
        store(PreferenceValue(propertyList: value) ?? .url(value), forKey: key)
    }

    /// Stores a ``PreferenceValue`` as it is.
    public func set(_ value: PreferenceValue, forKey key: String) { store(value, forKey: key) }

    /// Stores a property-list value (see ``PreferenceValue/init(propertyList:)``) or, failing that,
    /// any `Encodable` value as JSON; nil removes the key.
    ///
    /// - Complexity: O(n) in the number of nested elements.
    /// - Throws: ``DatabaseError`` `.typeMismatch` for a value that is neither (nothing is stored),
    ///   or `.serialization` when the JSON encoder fails; `.closed` once the database is closed.
    public func set(_ value: Any?, forKey key: String) throws {
        try database.gate.checkOpen()
        guard let value, !Self.isNil(value) else {
            removeObject(forKey: key)
            return
        }
        if let converted = PreferenceValue(propertyList: value) {
            store(converted, forKey: key)
        } else if let encodable = value as? any Encodable {
            store(try encodeCodable(encodable, forKey: key), forKey: key)
        } else {
            throw DatabaseError(
                .typeMismatch, "a \(type(of: value)) cannot be stored in preferences", collection: collection, key: key)
        }
    }

    /// Stores any `Encodable` value: arrays and dictionaries of property-list values natively, any
    /// other value as its JSON encoding (read it back with ``object(forKey:as:)``); nil removes the key.
    ///
    /// - Complexity: O(size of the value).
    /// - Throws: ``DatabaseError`` `.serialization` when the JSON encoder fails (nothing is stored),
    ///   `.closed` once the database is closed.
    public func set<T: Encodable>(_ value: T, forKey key: String) throws {
        try database.gate.checkOpen()
        if Self.isNil(value) {
            removeObject(forKey: key)
        } else if let converted = PreferenceValue(propertyList: value) {
            store(converted, forKey: key)
        } else {
            store(try encodeCodable(value, forKey: key), forKey: key)
        }
    }

    /// Removes the stored value; the registered default (if any) shows through again.
    public func removeObject(forKey key: String) {
        store(nil, forKey: key)
    }

    /// Removes every stored value of the suite.
    /// - Complexity: O(n) in the number of keys.
    public func removeAll() {
        let keys = state.withLock { state in state.entries.compactMap { $0.value.value == nil ? nil : $0.key } }
        for key in keys { removeObject(forKey: key) }
    }

    /// Updates memory and lists the key for the next hand-off to the proxy.
    func store(_ value: PreferenceValue?, forKey key: String) {
        guard database.isUsable(for: "Preferences.set") else { return }
        let mustAnnounce = state.withLock { $0.noteLocal(value, forKey: key) }
        if mustAnnounce {
            // A short window gathers a burst of sets into one announcement, and keeps the setter
            // from paying for a dispatch on every call.
            deliveryQueue.asyncAfter(deadline: .now() + Self.announcementDelay) { [weak self] in
                self?.announceLocalChanges()
            }
        }
    }

    private static func isNil(_ value: Any) -> Bool {
        guard let optional = value as? any OptionalValue else { return false }
        return optional.wrappedAny == nil
    }
}
