import Foundation

/// Reading and writing through typed keys (``Preferences/Key``): memory only, like the string API.
extension Preferences {
    /// The value of a typed key: the stored value, else a registered default, else the key's
    /// default.
    ///
    /// A stored value of another type reads as the key's default and is left as it is; the first
    /// such read of each key logs a warning. Setting stores the value at once in memory (it
    /// reaches the database in the next batch, as with ``set(_:forKey:)-(Bool,_)``); setting nil
    /// on an optional key removes the stored value. A value whose JSON encoding fails is not
    /// stored, and the failure is logged: use ``set(_:for:)`` to get the error instead.
    ///
    /// ```swift
    /// prefs[.darkMode] = true
    /// let isDark = prefs[.darkMode]
    /// ```
    /// - Complexity: O(1) for a Boolean, number, string, data or date; O(size of the value)
    ///   for the others.
    public subscript<Value>(key: Key<Value>) -> Value {
        get { value(for: key) }
        set {
            guard database.isUsable(for: "Preferences[key] =") else { return }
            do {
                try set(newValue, for: key)
            } catch {
                database.logger.warning(
                    "Coffer: a preference value could not be encoded; the stored value is unchanged",
                    metadata: ["collection": "\(collection)", "key": "\(key.name)", "error": "\(error)"])
            }
        }
    }

    /// Stores `value` under a typed key (nil on an optional key removes the stored value).
    /// - Complexity: as the subscript's setter.
    /// - Throws: ``DatabaseError`` `.serialization` (naming the key) when the JSON encoder fails
    ///   (nothing is stored then), `.closed` after the database was closed.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws {
        try database.gate.checkOpen()
        if let optional = value as? any OptionalValue, optional.wrappedAny == nil {
            removeObject(forKey: key.name)
        } else if let stored = Self.preferenceValue(of: value) {
            store(stored, forKey: key.name)
        } else {
            store(try encodeCodable(value, forKey: key.name), forKey: key.name)
        }
    }

    /// Removes the stored values of `keys`, so each reads as its registered or declared default again.
    public func reset(_ keys: Keys...) {
        for key in keys { removeObject(forKey: key.name) }
    }

    /// The value of `key` for `stored` (the stored or registered value, nil when there is none).
    func value<Value>(for key: Key<Value>, stored: PreferenceValue?) -> Value {
        guard let stored else { return key.defaultValue }
        if let decoded = Self.decode(stored, as: Value.self) { return decoded }
        let isFirst = state.withLock { $0.reportedMismatches.insert(key.name).inserted }
        if isFirst {
            database.logger.warning(
                "Coffer: a stored preference is not a \(Value.self); reading the key's default",
                metadata: ["collection": "\(collection)", "key": "\(key.name)"])
        }
        return key.defaultValue
    }

    private func value<Value>(for key: Key<Value>) -> Value {
        value(for: key, stored: value(forKey: key.name))
    }

    /// Reads `stored` as `Value`: the string API's form for the basic types, JSON for the others
    /// (and for a basic type stored as JSON); nil when it is neither.
    static func decode<Value: Decodable>(_ stored: PreferenceValue, as type: Value.Type) -> Value? {
        if let representable = Value.self as? any PreferenceRepresentable.Type,
            let value = representable.init(preferenceValue: stored) as? Value
        {
            return value
        }
        if let rawRepresentable = Value.self as? any RawRepresentable.Type,
            let value = Self.value(of: rawRepresentable, from: stored) as? Value
        {
            return value
        }
        guard case .codable(let data) = stored else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }

    /// The string API's form of `value`: its own for the basic types, its raw value's for an
    /// enum (or other `RawRepresentable`) whose raw value is one, so `Key<Theme>` and
    /// `string(forKey:)` read each other's values; nil for anything else (stored as JSON).
    static func preferenceValue(of value: Any) -> PreferenceValue? {
        if let representable = value as? any PreferenceRepresentable { return representable.preferenceValue }
        if let raw = value as? any RawRepresentable, let representable = raw.rawValue as? any PreferenceRepresentable {
            return representable.preferenceValue
        }
        return nil
    }

    /// A `T` made from `stored` read as its raw value, or nil (another kind, or no such case).
    private static func value<T: RawRepresentable>(of type: T.Type, from stored: PreferenceValue) -> T? {
        guard let rawType = T.RawValue.self as? any PreferenceRepresentable.Type,
            let raw = rawType.init(preferenceValue: stored) as? T.RawValue
        else { return nil }
        return T(rawValue: raw)
    }
}
