import Foundation

/// The typed getters' conversions, matching Foundation's `UserDefaults` on Linux for the same stored value.
///
/// `UserDefaults` reads a number through `NSNumber` bridging and a string through `NSString`'s
/// `boolValue`, `integerValue`, `doubleValue` and `floatValue`; these do the same, without
/// touching the stored value. Values of other types read as `false`, `0` or nil.
extension PreferenceValue {
    /// `bool(forKey:)`: numbers are true when non-zero; strings are true when they start with
    /// `Y`, `y`, `T`, `t` or a non-zero digit (after blanks, a sign and leading zeros).
    var boolCoercion: Bool {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value != 0
        case .double(let value): return value != 0
        case .float(let value): return value != 0
        case .string(let value): return NSString(string: value).boolValue
        default: return false
        }
    }

    /// `integer(forKey:)`: floating-point values truncate toward zero, and values outside `Int`
    /// (and NaN) read as `Int.min`, as the bridged conversion does on x86-64 and arm64 Linux.
    var integerCoercion: Int {
        switch self {
        case .int(let value): return value
        case .bool(let value): return value ? 1 : 0
        case .double(let value): return Self.truncated(value)
        case .float(let value): return Self.truncated(Double(value))
        case .string(let value): return NSString(string: value).integerValue
        default: return 0
        }
    }

    /// `double(forKey:)`.
    var doubleCoercion: Double {
        switch self {
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .int(let value): return Double(value)
        case .bool(let value): return value ? 1 : 0
        case .string(let value): return NSString(string: value).doubleValue
        default: return 0
        }
    }

    /// `float(forKey:)`: doubles round to the nearest `Float` (overflowing to infinity).
    var floatCoercion: Float {
        switch self {
        case .float(let value): return value
        case .double(let value): return Float(value)
        case .int(let value): return Float(value)
        case .bool(let value): return value ? 1 : 0
        case .string(let value): return NSString(string: value).floatValue
        default: return 0
        }
    }

    /// `string(forKey:)`: numbers read as their Swift description, Booleans as `"1"` / `"0"`.
    var stringCoercion: String? {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value): return value.description
        case .float(let value): return value.description
        case .bool(let value): return value ? "1" : "0"
        default: return nil
        }
    }

    /// `url(forKey:)`: a string is a file path (with `~` expanded); data is read as a keyed archive of a URL.
    var urlCoercion: URL? {
        switch self {
        case .url(let value): return value
        case .string(let value): return URL(fileURLWithPath: NSString(string: value).expandingTildeInPath)
        case .data(let value):
            // UserDefaults on Linux traps on data that is not an archive; this reads it as nil instead.
            return (try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: value)).map { $0 as URL }
        default: return nil
        }
    }

    /// `data(forKey:)`.
    var dataCoercion: Data? {
        switch self {
        case .data(let value), .codable(let value): return value
        default: return nil
        }
    }

    /// `array(forKey:)`.
    var arrayCoercion: [Any]? {
        guard case .array(let values) = self else { return nil }
        return values.map(\.propertyListObject)
    }

    /// `stringArray(forKey:)`: an array whose every element is a string.
    var stringArrayCoercion: [String]? {
        guard case .array(let values) = self else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard case .string(let string) = value else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// `dictionary(forKey:)`.
    var dictionaryCoercion: [String: Any]? {
        guard case .dictionary(let values) = self else { return nil }
        return values.mapValues(\.propertyListObject)
    }

    private static func truncated(_ value: Double) -> Int {
        // -2^63 ... 2^63 (exclusive) truncates to a valid Int; everything else is "integer indefinite".
        guard value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0 else { return .min }
        return Int(value)
    }
}
