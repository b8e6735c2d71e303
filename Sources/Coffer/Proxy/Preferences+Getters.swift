public import Foundation

/// Typed getters: memory only, never a transaction. Missing keys fall back on registered defaults,
/// then on `false`, `0` or nil; mismatched types convert as `UserDefaults` does (see ``Preferences``).
extension Preferences {
    /// The stored (or registered) value, with its type.
    /// - Complexity: O(1).
    public func value(forKey key: String) -> PreferenceValue? {
        state.withLock { $0.value(forKey: key) }
    }

    /// The value as a property-list object (`Bool`, `Int`, `Double`, `Float`, `String`, `Data`,
    /// `Date`, `URL`, `[Any]`, `[String: Any]`), or nil.
    public func object(forKey key: String) -> Any? {
        value(forKey: key)?.propertyListObject
    }

    /// The value decoded as `T`: a value stored as JSON is decoded, any other value is cast.
    /// - Returns: nil when the key has no value.
    /// - Throws: ``DatabaseError`` `.serialization` when stored JSON does not decode as `T`, or
    ///   `.typeMismatch` when the value is of another type. The stored value is never changed.
    ///   `.closed` once the database is closed.
    public func object<T: Decodable>(forKey key: String, as type: T.Type) throws -> T? {
        try database.gate.checkOpen()
        guard let value = value(forKey: key) else { return nil }
        if let typed = value as? T { return typed }
        if case .codable(let data) = value {
            do {
                return try JSONDecoder().decode(T.self, from: data)
            } catch {
                throw DatabaseError(
                    .serialization, "cannot decode the stored value as \(T.self)", collection: collection, key: key,
                    underlying: error)
            }
        }
        if let typed = value.propertyListObject as? T { return typed }
        throw DatabaseError(
            .typeMismatch, "the stored value cannot be read as \(T.self)", collection: collection, key: key)
    }

    /// The value as a Boolean (`false` when missing or not convertible).
    public func bool(forKey key: String) -> Bool {
        value(forKey: key)?.boolCoercion ?? false
    }

    /// The value as an integer (0 when missing or not convertible).
    public func integer(forKey key: String) -> Int {
        value(forKey: key)?.integerCoercion ?? 0
    }

    /// The value as a double (0 when missing or not convertible).
    public func double(forKey key: String) -> Double {
        value(forKey: key)?.doubleCoercion ?? 0
    }

    /// The value as a float (0 when missing or not convertible).
    public func float(forKey key: String) -> Float {
        value(forKey: key)?.floatCoercion ?? 0
    }

    /// The value as a string: strings as stored, numbers and Booleans as text, anything else nil.
    public func string(forKey key: String) -> String? {
        value(forKey: key)?.stringCoercion
    }

    /// The value as bytes (data, or the JSON of a `Codable` value), else nil.
    public func data(forKey key: String) -> Data? {
        value(forKey: key)?.dataCoercion
    }

    /// The value as a URL: a stored URL, a string read as a file path, else nil.
    public func url(forKey key: String) -> URL? {
        value(forKey: key)?.urlCoercion
    }

    /// The value as an array, else nil.
    public func array(forKey key: String) -> [Any]? {
        value(forKey: key)?.arrayCoercion
    }

    /// The value as an array of strings (nil unless every element is a string).
    public func stringArray(forKey key: String) -> [String]? {
        value(forKey: key)?.stringArrayCoercion
    }

    /// The value as a dictionary, else nil.
    public func dictionary(forKey key: String) -> [String: Any]? {
        value(forKey: key)?.dictionaryCoercion
    }
}
