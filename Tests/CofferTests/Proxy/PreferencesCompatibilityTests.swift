import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Runs the same inputs through Foundation's `UserDefaults` and through ``Preferences`` and
/// compares every getter, so the type conversions match `UserDefaults` on this platform exactly.
@Suite struct PreferencesCompatibilityTests {
    /// Values both stores accept, chosen to hit every conversion rule (and its edges).
    static var inputs: [(String, Any)] {
        var inputs: [(String, Any)] = []
        for value in [0, 1, -1, 2, 42, -3, Int.min, 16_777_217, 9_007_199_254_740_993, Int.max - 1] {
            inputs.append(("int \(value)", value))
        }
        let doubles: [Double] = [
            0, -0.0, 3.75, -2.5, 0.1, 1.0 / 3, 1e20, 1e300, -9.3e18, 9.2e18, 9.223372036854775807e18, 2.9, -0.5,
            .nan, .infinity, -.infinity, 42, 1e16, .leastNonzeroMagnitude, 1e15, 3.4028234663852886e38, 4e38,
        ]
        for value in doubles { inputs.append(("double \(value)", value)) }
        for value: Float in [0.1, 1.5, 2.9, -0.0, .nan, .infinity, 3.4e38, 1e10, 16_777_216] {
            inputs.append(("float \(value)", value))
        }
        inputs.append(("bool true", true))
        inputs.append(("bool false", false))
        let strings = [
            "42", "YES", "yes", "true", "NO", "1", "0", "/tmp/x y", "~/docs", "https://example.com/a", "3.5", "abc",
            "", "-7", "T", "Y", "N", " 12", "12x", "1e3", "0.5", "-0", "+1", "00001", "  y", "\ty", "\n1", "0x10",
            "inf", "nan", ".5", "5.", "1,5", "99999999999999999999", "-99999999999999999999", "1e400", "t", "n",
            "-y", "+y", "0y", "00", "TRUE", "No", "٣", "1 2", "3.9", "-3.9", "1e-400", "0001.5", "- 5",
            "infinity", "0e5", "  ", "é", "Yes please", "9223372036854775807", "9223372036854775808",
            "relative/path", "1.7976931348623157e309", "0.333333333333333333",
        ]
        for value in strings { inputs.append(("string \(value.debugDescription)", value)) }
        inputs.append(("data", Data([1, 2, 3])))
        inputs.append(("empty data", Data()))
        inputs.append(("date", Date(timeIntervalSince1970: 1_000)))
        inputs.append(("file url", URL(fileURLWithPath: "/tmp/f")))
        inputs.append(("file url with space", URL(fileURLWithPath: "/tmp/a b/c")))
        inputs.append(("string array", ["a", "b"]))
        inputs.append(("mixed array", ["a", 1] as [Any]))
        inputs.append(("int array", [1, 2]))
        inputs.append(("empty array", [String]()))
        inputs.append(("number array", [1, 2.5, true, "x"] as [Any]))
        inputs.append(("dictionary", ["a": 1, "b": "x"] as [String: Any]))
        inputs.append(("string dictionary", ["a": "b"]))
        inputs.append(
            ("nested dictionary", ["a": [1, 2], "b": ["c": Date(timeIntervalSince1970: 5)]] as [String: Any]))
        inputs.append(("empty dictionary", [String: Any]()))
        return inputs
    }

    /// Keyed archives of URLs: the one kind of data `UserDefaults.url(forKey:)` reads without trapping.
    static var archivedURL: Data {
        (try? NSKeyedArchiver.archivedData(
            withRootObject: NSURL(fileURLWithPath: "/tmp/archived"), requiringSecureCoding: false)) ?? Data()
    }

    let dir = TemporaryDirectory()

    /// A `UserDefaults` suite of its own, emptied when the test ends.
    final class DefaultsSuite {
        let name = "coffer.tests.\(UUID().uuidString)"
        let defaults: UserDefaults

        init() throws {
            defaults = try #require(UserDefaults(suiteName: name))
        }

        /// Registers every `Float` among `values` under a key of its own and returns those keys by
        /// position (nil for the other values).
        ///
        /// Once UserDefaults' own timer has written the suite to its property-list file, it reads a
        /// stored float back as a double (and a float -0.0 as 0.0); the registration domain is never
        /// written, so its answers for a float are the same at any moment and are the reference.
        func registeredFloats(_ values: [Any]) -> [String?] {
            let keys = values.indices.map { values[$0] is Float ? "\(name).float\($0)" : nil }
            var registered: [String: Any] = [:]
            for (key, value) in zip(keys, values) {
                if let key { registered[key] = value }
            }
            defaults.register(defaults: registered)
            return keys
        }

        deinit {
            defaults.removePersistentDomain(forName: name)
        }
    }

    @Test func everyGetterMatchesUserDefaultsForStoredValues() throws {
        let suite = try DefaultsSuite()
        let db = try Database(url: dir.file("compat.db"), options: TestSupport.rawKeyOptions())
        let prefs = try Preferences(database: db, suite: "compat")
        var keys: [String] = []
        for (index, (_, value)) in Self.inputs.enumerated() {
            let key = "k\(index)"
            suite.defaults.set(value, forKey: key)
            try prefs.set(value, forKey: key)
            keys.append(key)
        }
        suite.defaults.set(Self.archivedURL, forKey: "archived")
        prefs.set(Self.archivedURL, forKey: "archived")
        let floatKeys = suite.registeredFloats(Self.inputs.map(\.1))
        // Written now rather than whenever UserDefaults' timer fires, so every run compares the same state.
        _ = suite.defaults.synchronize()
        for (index, (label, value)) in Self.inputs.enumerated() {
            if Self.isNegativeZero(value) {
                expectNegativeZero(prefs, key: "k\(index)", label: label)
                continue
            }
            // `UserDefaults.url(forKey:)` traps on data that is not an archive; Preferences returns nil.
            let skipURL = value is Data
            compare(
                suite.defaults, prefs, key: "k\(index)", defaultsKey: floatKeys[index], label: label, skipURL: skipURL)
        }
        compare(suite.defaults, prefs, key: "archived", label: "archived URL", skipURL: false)
        compare(suite.defaults, prefs, key: "missing", label: "missing key", skipURL: false)

        // The same values read back from disk behave the same.
        try prefs.flush()
        let reloaded = try ProxyTestSupport.retryingBusy { try Preferences(database: db, suite: "compat") }
        for (index, (label, value)) in Self.inputs.enumerated() {
            if Self.isNegativeZero(value) {
                expectNegativeZero(reloaded, key: "k\(index)", label: "reloaded \(label)")
                continue
            }
            compare(
                suite.defaults, reloaded, key: "k\(index)", defaultsKey: floatKeys[index], label: "reloaded \(label)",
                skipURL: value is Data)
        }
        let expected = suite.defaults.dictionaryRepresentation()
        let actual = reloaded.dictionaryRepresentation()
        // Once UserDefaults has round-tripped the suite through its property-list file, it returns
        // floats as doubles and -0.0 as 0.0 here (but not from its getters); Preferences keeps both.
        for (key, (_, value)) in zip(keys, Self.inputs) where !(value is Float) && !Self.isNegativeZero(value) {
            #expect(Self.canonical(expected[key]) == Self.canonical(actual[key]), "dictionaryRepresentation \(key)")
        }
    }

    @Test func typedSettersMatchUserDefaults() throws {
        let suite = try DefaultsSuite()
        let db = try Database(url: dir.file("typed.db"), options: TestSupport.rawKeyOptions())
        let prefs = try Preferences(database: db)
        let defaults = suite.defaults
        defaults.set(7, forKey: "int")
        prefs.set(7, forKey: "int")
        defaults.set(0.25, forKey: "double")
        prefs.set(0.25, forKey: "double")
        defaults.set(Float(2.5), forKey: "float")
        prefs.set(Float(2.5), forKey: "float")
        let floatKey = suite.registeredFloats([Float(2.5)])[0]
        defaults.set(true, forKey: "bool")
        prefs.set(true, forKey: "bool")
        defaults.set("42", forKey: "string")
        prefs.set("42", forKey: "string")
        defaults.set(URL(fileURLWithPath: "/tmp/typed"), forKey: "url")
        prefs.set(URL(fileURLWithPath: "/tmp/typed"), forKey: "url")
        defaults.set(Date(timeIntervalSince1970: 9), forKey: "date")
        prefs.set(Date(timeIntervalSince1970: 9), forKey: "date")
        defaults.set(Data([9]), forKey: "data")
        prefs.set(Data([9]), forKey: "data")
        _ = defaults.synchronize()
        for key in ["int", "double", "bool", "string", "url", "date"] {
            compare(defaults, prefs, key: key, label: "typed \(key)", skipURL: false)
        }
        compare(defaults, prefs, key: "float", defaultsKey: floatKey, label: "typed float", skipURL: false)
        compare(defaults, prefs, key: "data", label: "typed data", skipURL: true)
        // Removing a key reads like a missing key again.
        defaults.removeObject(forKey: "int")
        prefs.removeObject(forKey: "int")
        compare(defaults, prefs, key: "int", label: "removed", skipURL: false)
    }

    @Test func registeredDefaultsMatchUserDefaults() throws {
        let suite = try DefaultsSuite()
        let db = try Database(url: dir.file("registered.db"), options: TestSupport.rawKeyOptions())
        let prefs = try Preferences(database: db)
        // UserDefaults' registration domain is shared by the whole process: unique keys only.
        let prefix = "reg-\(UUID().uuidString)-"
        var registered: [String: Any] = [:]
        for (index, (_, value)) in Self.inputs.enumerated() where !(value is Data) {
            registered["\(prefix)\(index)"] = value
        }
        registered["\(prefix)web"] = URL(string: "https://example.com/x")
        registered["\(prefix)file"] = URL(fileURLWithPath: "/tmp/registered")
        suite.defaults.register(defaults: registered)
        try prefs.register(defaults: registered)
        for key in registered.keys.sorted() {
            compare(suite.defaults, prefs, key: key, label: "registered \(key)", skipURL: false)
        }
        // A stored value hides the registered one; removing it shows the default again.
        suite.defaults.set("stored", forKey: "\(prefix)0")
        prefs.set("stored", forKey: "\(prefix)0")
        compare(suite.defaults, prefs, key: "\(prefix)0", label: "stored over registered", skipURL: false)
        suite.defaults.removeObject(forKey: "\(prefix)0")
        prefs.removeObject(forKey: "\(prefix)0")
        compare(suite.defaults, prefs, key: "\(prefix)0", label: "registered again", skipURL: false)
        let expected = suite.defaults.dictionaryRepresentation()
        let actual = prefs.dictionaryRepresentation()
        for key in registered.keys {
            #expect(Self.canonical(expected[key]) == Self.canonical(actual[key]), "dictionaryRepresentation \(key)")
        }
    }

    /// Reads `key` through every getter of both stores and expects identical answers; `defaultsKey`,
    /// when given, is the key read from `defaults` instead.
    func compare(
        _ defaults: UserDefaults, _ prefs: Preferences, key: String, defaultsKey: String? = nil, label: String,
        skipURL: Bool
    ) {
        let other = defaultsKey ?? key
        #expect(prefs.bool(forKey: key) == defaults.bool(forKey: other), "bool: \(label)")
        #expect(prefs.integer(forKey: key) == defaults.integer(forKey: other), "integer: \(label)")
        #expect(Self.same(prefs.double(forKey: key), defaults.double(forKey: other)), "double: \(label)")
        #expect(Self.same(Double(prefs.float(forKey: key)), Double(defaults.float(forKey: other))), "float: \(label)")
        #expect(prefs.string(forKey: key) == defaults.string(forKey: other), "string: \(label)")
        #expect(
            Self.canonical(prefs.data(forKey: key)) == Self.canonical(defaults.data(forKey: other)), "data: \(label)")
        if !skipURL {
            #expect(
                prefs.url(forKey: key)?.absoluteString == defaults.url(forKey: other)?.absoluteString, "url: \(label)")
        }
        #expect(
            Self.canonical(prefs.array(forKey: key)) == Self.canonical(defaults.array(forKey: other)), "array: \(label)"
        )
        #expect(
            Self.canonical(prefs.dictionary(forKey: key)) == Self.canonical(defaults.dictionary(forKey: other)),
            "dictionary: \(label)")
        #expect(prefs.stringArray(forKey: key) == defaults.stringArray(forKey: other), "stringArray: \(label)")
        #expect(
            Self.canonical(prefs.object(forKey: key)) == Self.canonical(defaults.object(forKey: other)),
            "object: \(label)")
    }

    /// Checks what Preferences answers for a stored -0.0.
    ///
    /// `UserDefaults` answers the same until its suite has been written to its property-list file,
    /// which it does on its own timer, and 0.0 after; so a comparison with it would depend on that timer.
    func expectNegativeZero(_ prefs: Preferences, key: String, label: String) {
        let negativeZero = -0.0
        #expect(Self.same(prefs.double(forKey: key), negativeZero), "double: \(label)")
        #expect(Self.same(Double(prefs.float(forKey: key)), negativeZero), "float: \(label)")
        #expect(prefs.string(forKey: key) == "-0.0", "string: \(label)")
        #expect(prefs.integer(forKey: key) == 0, "integer: \(label)")
        #expect(!prefs.bool(forKey: key), "bool: \(label)")
        #expect(Self.canonical(prefs.object(forKey: key)) == "double(-0.0)", "object: \(label)")
        #expect(prefs.data(forKey: key) == nil && prefs.array(forKey: key) == nil, "data, array: \(label)")
    }

    static func isNegativeZero(_ value: Any) -> Bool {
        guard let double = value as? Double, type(of: value) == Double.self else { return false }
        return double == 0 && double.sign == .minus
    }

    /// Equal, or both NaN.
    static func same(_ lhs: Double, _ rhs: Double) -> Bool {
        (lhs.isNaN && rhs.isNaN) || (lhs == rhs && lhs.sign == rhs.sign)
    }

    /// A type-tagged description of a property-list object, so `1`, `1.0`, `true` and `"1"` differ.
    static func canonical(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let optional = value as? any OptionalValue {
            return canonical(optional.wrappedAny)
        }
        let type = Swift.type(of: value)
        if type == Bool.self, let value = value as? Bool { return "bool(\(value))" }
        if type == Int.self, let value = value as? Int { return "int(\(value))" }
        if type == Int64.self, let value = value as? Int64 { return "int(\(value))" }
        if type == Double.self, let value = value as? Double { return "double(\(value))" }
        if type == Float.self, let value = value as? Float { return "float(\(value))" }
        if type == String.self, let value = value as? String { return "string(\(value.debugDescription))" }
        if type == Data.self, let value = value as? Data {
            // Two keyed archives of one URL can order their dictionaries differently from run to run.
            if let url = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: value) {
                return "archived-url(\(url.absoluteString))"
            }
            return "data(\(value.base64EncodedString()))"
        }
        if type == Date.self, let value = value as? Date { return "date(\(value.timeIntervalSinceReferenceDate))" }
        if type == URL.self, let value = value as? URL { return "url(\(value.absoluteString))" }
        if let array = value as? [Any] {
            return "[" + array.map { canonical($0) }.joined(separator: ", ") + "]"
        }
        if let dictionary = value as? [AnyHashable: Any] {
            let entries = dictionary.map { key, element in "\(key.base): \(canonical(element))" }.sorted()
            return "{" + entries.joined(separator: ", ") + "}"
        }
        return "other \(type): \(value)"
    }
}
