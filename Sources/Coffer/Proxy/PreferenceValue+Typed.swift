import Foundation

/// A type whose values ``Preferences`` stores as the string API does, so typed keys and the
/// string API read each other's values.
///
/// Reading is strict about the kind of value, with one allowance: numbers convert between
/// integer and floating-point types when the conversion is exact (a whole `Double` reads as an
/// `Int`). Any other mismatch reads as nil, which a typed key turns into its default.
protocol PreferenceRepresentable {
    /// The value as the string API would store it, or nil when it has no such form (an array
    /// holding a nil, say): it is then stored as JSON.
    var preferenceValue: PreferenceValue? { get }
    /// Reads a stored value, or returns nil when it is of another kind.
    init?(preferenceValue: PreferenceValue)
}

extension Bool: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? { .bool(self) }
    init?(preferenceValue: PreferenceValue) {
        guard case .bool(let value) = preferenceValue else { return nil }
        self = value
    }
}

/// Integers are stored as ``PreferenceValue/int(_:)``, as `set(_:forKey:)` stores them.
protocol PreferenceInteger: FixedWidthInteger, PreferenceRepresentable {}

extension PreferenceInteger {
    var preferenceValue: PreferenceValue? { Int(exactly: self).map { .int($0) } }
    init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .int(let value): self.init(exactly: value)
        case .double(let value): self.init(exactly: value)
        case .float(let value): self.init(exactly: value)
        default: return nil
        }
    }
}

extension Int: PreferenceInteger {}
extension Int8: PreferenceInteger {}
extension Int16: PreferenceInteger {}
extension Int32: PreferenceInteger {}
extension Int64: PreferenceInteger {}
extension UInt: PreferenceInteger {}
extension UInt8: PreferenceInteger {}
extension UInt16: PreferenceInteger {}
extension UInt32: PreferenceInteger {}
extension UInt64: PreferenceInteger {}

extension Double: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? { .double(self) }
    init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .double(let value): self = value
        case .float(let value): self = Double(value)
        case .int(let value): self.init(exactly: value)
        default: return nil
        }
    }
}

extension Float: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? { .float(self) }
    init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .float(let value): self = value
        case .double(let value):
            // NaN has no exact conversion but is the same value in both types.
            if value.isNaN { self = .nan } else { self.init(exactly: value) }
        case .int(let value): self.init(exactly: value)
        default: return nil
        }
    }
}

extension String: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? { .string(self) }
    init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Data: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? { .data(self) }
    init?(preferenceValue: PreferenceValue) {
        guard case .data(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Date: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? { .date(self) }
    init?(preferenceValue: PreferenceValue) {
        guard case .date(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension URL: PreferenceRepresentable {
    /// A file URL is stored as its path, as `set(_:forKey:)` stores it.
    var preferenceValue: PreferenceValue? { PreferenceValue(propertyList: self) }
    init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .url(let value): self = value
        case .string(let path): self.init(fileURLWithPath: path)
        default: return nil
        }
    }
}

extension Array: PreferenceRepresentable where Element: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? {
        var values: [PreferenceValue] = []
        values.reserveCapacity(count)
        for element in self {
            guard let value = element.preferenceValue else { return nil }
            values.append(value)
        }
        return .array(values)
    }

    init?(preferenceValue: PreferenceValue) {
        guard case .array(let values) = preferenceValue else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        for value in values {
            guard let element = Element(preferenceValue: value) else { return nil }
            elements.append(element)
        }
        self = elements
    }
}

extension Dictionary: PreferenceRepresentable where Key == String, Value: PreferenceRepresentable {
    var preferenceValue: PreferenceValue? {
        var values: [String: PreferenceValue] = [:]
        values.reserveCapacity(count)
        for (key, element) in self {
            guard let value = element.preferenceValue else { return nil }
            values[key] = value
        }
        return .dictionary(values)
    }

    init?(preferenceValue: PreferenceValue) {
        guard case .dictionary(let values) = preferenceValue else { return nil }
        var elements: [String: Value] = [:]
        elements.reserveCapacity(values.count)
        for (key, value) in values {
            guard let element = Value(preferenceValue: value) else { return nil }
            elements[key] = element
        }
        self = elements
    }
}

extension Optional: PreferenceRepresentable where Wrapped: PreferenceRepresentable {
    /// nil has no stored form: a typed set of nil removes the key before asking.
    var preferenceValue: PreferenceValue? { self?.preferenceValue }
    init?(preferenceValue: PreferenceValue) {
        guard let value = Wrapped(preferenceValue: preferenceValue) else { return nil }
        self = .some(value)
    }
}

extension PreferenceValue: PreferenceRepresentable {
    /// A `Preferences.Key<PreferenceValue>` reads and writes the stored value as it is.
    var preferenceValue: PreferenceValue? { self }
    init?(preferenceValue: PreferenceValue) {
        self = preferenceValue
    }
}
