import Foundation

/// Converting between `PreferenceValue` and the property-list objects `UserDefaults` deals in.
extension PreferenceValue {
    /// Converts a property-list style value — `Bool`, any fixed-width integer that fits in `Int`,
    /// `Double`, `Float`, `String`, `Data`, `Date`, `URL`, `NSNumber`, and arrays and
    /// string-keyed dictionaries of those — or returns nil for anything else.
    ///
    /// A file URL becomes its path, as `UserDefaults.set(_:forKey:)` on Linux stores it; other
    /// URLs are kept whole. A nil optional (at the top level or inside a collection) is not a value.
    /// - Complexity: O(n) in the number of nested elements.
    public init?(propertyList value: Any) {
        guard let converted = Self.convert(value, keepingFileURLs: false) else { return nil }
        self = converted
    }

    /// Like ``init(propertyList:)`` but keeps file URLs as URLs: registered defaults live in
    /// memory only and `UserDefaults` hands them back unchanged.
    init?(registered value: Any) {
        guard let converted = Self.convert(value, keepingFileURLs: true) else { return nil }
        self = converted
    }

    /// The value as `UserDefaults.object(forKey:)` returns it.
    ///
    /// One of `Bool`, `Int`, `Double`, `Float`, `String`, `Data`, `Date`, `URL`, `[Any]` or
    /// `[String: Any]`; a ``codable(_:)`` value reads as its JSON `Data`.
    public var propertyListObject: Any {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        // UserDefaults on Linux hands back non-finite floats as Double.
        case .float(let value): return value.isFinite ? value as Any : Double(value) as Any
        case .string(let value): return value
        case .data(let value): return value
        case .date(let value): return value
        case .url(let value): return value
        case .array(let values): return values.map(\.propertyListObject)
        case .dictionary(let values): return values.mapValues(\.propertyListObject)
        case .codable(let value): return value
        }
    }

    private static func convert(_ value: Any, keepingFileURLs: Bool) -> PreferenceValue? {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedAny else { return nil }
            return convert(wrapped, keepingFileURLs: keepingFileURLs)
        }
        // Exact type checks first: on Linux, `as?` bridges through NSNumber and NSString, so an
        // Int would otherwise also pass as a String or a Bool.
        let type = Swift.type(of: value)
        if type == PreferenceValue.self, let value = value as? PreferenceValue { return value }
        if type == String.self, let value = value as? String { return .string(value) }
        if type == Int.self, let value = value as? Int { return .int(value) }
        if type == Bool.self, let value = value as? Bool { return .bool(value) }
        if type == Double.self, let value = value as? Double { return .double(value) }
        if type == Float.self, let value = value as? Float { return .float(value) }
        if type == Data.self, let value = value as? Data { return .data(value) }
        if type == Date.self, let value = value as? Date { return .date(value) }
        if type == URL.self, let value = value as? URL { return url(value, keepingFileURLs: keepingFileURLs) }
        if !(type is AnyObject.Type), let integer = value as? any FixedWidthInteger {
            return Int(exactly: integer).map { .int($0) }
        }
        if type == Substring.self, let value = value as? Substring { return .string(String(value)) }
        if let number = value as? NSNumber, type is NSNumber.Type { return Self.number(number) }
        if type is NSString.Type, let value = value as? String { return .string(value) }
        if type is NSData.Type, let value = value as? Data { return .data(value) }
        if type is NSDate.Type, let value = value as? Date { return .date(value) }
        if type is NSURL.Type, let value = value as? URL { return url(value, keepingFileURLs: keepingFileURLs) }
        if let array = value as? [Any] {
            var converted: [PreferenceValue] = []
            converted.reserveCapacity(array.count)
            for element in array {
                guard let element = convert(element, keepingFileURLs: keepingFileURLs) else { return nil }
                converted.append(element)
            }
            return .array(converted)
        }
        if let dictionary = value as? [String: Any] {
            var converted: [String: PreferenceValue] = [:]
            converted.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                guard let element = convert(element, keepingFileURLs: keepingFileURLs) else { return nil }
                converted[key] = element
            }
            return .dictionary(converted)
        }
        return nil
    }

    private static func url(_ url: URL, keepingFileURLs: Bool) -> PreferenceValue {
        if url.isFileURL && !keepingFileURLs { return .string(url.absoluteURL.path) }
        return .url(url)
    }

    /// Classifies an `NSNumber` by the C type it holds.
    private static func number(_ number: NSNumber) -> PreferenceValue? {
        // Booleans are the two shared CFBoolean instances on every platform.
        if number === NSNumber(value: true) || number === NSNumber(value: false) { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f": return .float(number.floatValue)
        case "d": return .double(number.doubleValue)
        case "Q", "L":
            return Int(exactly: number.uint64Value).map { .int($0) }
        default: return .int(number.intValue)
        }
    }
}

/// Lets converters see through `Optional` values hidden in an `Any` or a generic parameter.
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? {
        switch self {
        case .some(let value): return value
        case .none: return nil
        }
    }
}
