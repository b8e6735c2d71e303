public import Foundation

/// One stored preference, keeping the type it was set with.
///
/// ``Preferences`` stores each key as one of these, so a value reads back as exactly what was
/// set, and the typed getters convert between types the way `UserDefaults` does without ever
/// rewriting the stored value. Encoded as a one-key JSON object (`{"i":42}`, `{"s":"dark"}`);
/// non-finite numbers are encoded as the strings `"nan"`, `"inf"` and `"-inf"`.
public enum PreferenceValue: Sendable, Hashable {
    /// A Boolean.
    case bool(Bool)
    /// An integer (any fixed-width integer that fits in `Int`).
    case int(Int)
    /// A double-precision number.
    case double(Double)
    /// A single-precision number (kept apart so it reads back exactly as `UserDefaults` returns it).
    case float(Float)
    /// A string (also a file URL, which is stored as its path, as `UserDefaults` on Linux does).
    case string(String)
    /// Raw bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// A URL that is not a file URL, kept whole.
    case url(URL)
    /// An array of values.
    indirect case array([PreferenceValue])
    /// A dictionary with string keys.
    indirect case dictionary([String: PreferenceValue])
    /// Any other `Codable` value, as its JSON encoding.
    case codable(Data)
}

extension PreferenceValue: Codable {
    private enum Tag: String, CodingKey {
        case bool = "b", int = "i", double = "d", float = "f", string = "s", data = "x", date = "t", url = "u"
        case array = "a", dictionary = "m", codable = "c"
    }

    /// Encodes the value as a one-key object whose key names the type.
    /// - Throws: `EncodingError` from the encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Tag.self)
        switch self {
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .int(let value): try container.encode(value, forKey: .int)
        case .double(let value):
            if value.isFinite {
                try container.encode(value, forKey: .double)
            } else {
                try container.encode(Self.nonFiniteName(Double(value)), forKey: .double)
            }
        case .float(let value):
            if value.isFinite {
                try container.encode(value, forKey: .float)
            } else {
                try container.encode(Self.nonFiniteName(Double(value)), forKey: .float)
            }
        case .string(let value): try container.encode(value, forKey: .string)
        case .data(let value): try container.encode(value, forKey: .data)
        case .date(let value): try container.encode(value.timeIntervalSinceReferenceDate, forKey: .date)
        case .url(let value): try container.encode(value.absoluteString, forKey: .url)
        case .array(let value): try container.encode(value, forKey: .array)
        case .dictionary(let value): try container.encode(value, forKey: .dictionary)
        case .codable(let value): try container.encode(value, forKey: .codable)
        }
    }

    /// Decodes a value written by ``encode(to:)``.
    /// - Throws: `DecodingError` when the object does not have exactly one known key or its
    ///   payload has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Tag.self)
        guard container.allKeys.count == 1, let tag = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected one type key"))
        }
        switch tag {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: tag))
        case .int: self = .int(try container.decode(Int.self, forKey: tag))
        case .double: self = .double(try Self.decodeNumber(container, tag))
        case .float:
            if let value = try? container.decode(Float.self, forKey: tag) {
                self = .float(value)
            } else {
                self = .float(Float(try Self.decodeNumber(container, tag)))
            }
        case .string: self = .string(try container.decode(String.self, forKey: tag))
        case .data: self = .data(try container.decode(Data.self, forKey: tag))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: tag)))
        case .url:
            let text = try container.decode(String.self, forKey: tag)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(forKey: tag, in: container, debugDescription: "not a URL")
            }
            self = .url(url)
        case .array: self = .array(try container.decode([PreferenceValue].self, forKey: tag))
        case .dictionary: self = .dictionary(try container.decode([String: PreferenceValue].self, forKey: tag))
        case .codable: self = .codable(try container.decode(Data.self, forKey: tag))
        }
    }

    private static func nonFiniteName(_ value: Double) -> String {
        value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")
    }

    private static func decodeNumber(_ container: KeyedDecodingContainer<Tag>, _ tag: Tag) throws -> Double {
        if let value = try? container.decode(Double.self, forKey: tag) { return value }
        switch try container.decode(String.self, forKey: tag) {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default:
            throw DecodingError.dataCorruptedError(forKey: tag, in: container, debugDescription: "not a number")
        }
    }
}
