extension Preferences {
    /// The namespace of typed preference keys: declare each key as a static property in an
    /// extension of this class, so it can be written with a leading dot.
    ///
    /// ```swift
    /// extension Preferences.Keys {
    ///     static let darkMode = Preferences.Key<Bool>("darkMode", default: false)
    /// }
    /// prefs[.darkMode] = true
    /// ```
    ///
    /// A non-generic base class is what lets `prefs[.darkMode]` find the static property: the
    /// subscript takes a ``Preferences/Key``, which inherits the statics declared here (the
    /// pattern of the Defaults package).
    public class Keys: @unchecked Sendable {
        // Safety: every stored property of this class and of its only subclass, `Key`, is an
        // immutable `let` of a Sendable type, and the initializer is not public, so no other
        // subclass can add mutable state.

        /// The key the value is stored under; the string API reads and writes the same key.
        public let name: String

        init(name: String) {
            self.name = name
        }
    }

    /// A typed preference key: its name, the type of its value and the value it reads as when
    /// nothing (or a value of another type) is stored.
    ///
    /// Values of the basic types — `Bool`, integers, `Double`, `Float`, `String`, `Data`, `Date`,
    /// `URL`, and arrays, string-keyed dictionaries and optionals of them — are stored as the string
    /// API stores them, so `prefs[.darkMode]` reads a value set with `set(true, forKey: "darkMode")`
    /// and the other way round; a `Key<PreferenceValue>` reads and writes the stored value as it
    /// is. Any other `Codable` value is stored as its JSON encoding, as the string API's
    /// `set(_:forKey:)` stores an `Encodable` value.
    public final class Key<Value: Codable & Sendable>: Keys, @unchecked Sendable {
        // Safety: see `Keys`; `defaultValue` is an immutable Sendable value.

        /// What the key reads as when nothing is stored (and nothing registered), or when the
        /// stored value is of another type.
        public let defaultValue: Value

        /// Creates a key stored under `name`, reading as `defaultValue` when unset.
        public init(_ name: String, default defaultValue: Value) {
            self.defaultValue = defaultValue
            super.init(name: name)
        }

        /// Creates a key of an optional type stored under `name`, reading as nil when unset.
        public convenience init<Wrapped>(_ name: String) where Value == Wrapped? {
            self.init(name, default: nil)
        }
    }
}
