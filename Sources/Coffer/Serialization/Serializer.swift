public import Foundation

/// Turns objects into bytes and back: the codec at the start of a serializer chain.
///
/// A serializer is a pair of closures; the static factories cover the common formats.
/// The closures may be called from any connection's queue at the same time, so they must
/// not share mutable state.
public struct Serializer: Sendable {
    /// A short name used in error messages ("json", "data", …).
    public var name: String
    let encodeBody: @Sendable (any Sendable) throws -> Data
    let decodeBody: @Sendable (Data) throws -> any Sendable

    /// Creates a codec from an encoding and a decoding closure.
    public init(
        name: String,
        encode: @escaping @Sendable (any Sendable) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> any Sendable
    ) {
        self.name = name
        self.encodeBody = encode
        self.decodeBody = decode
    }

    /// Encodes one object; throws ``SerializationError`` when the object does not fit the codec.
    public func encode(_ object: any Sendable) throws -> Data {
        try encodeBody(object)
    }

    /// Decodes one object; throws ``SerializationError`` when the bytes do not decode.
    public func decode(_ data: Data) throws -> any Sendable {
        try decodeBody(data)
    }
}

extension Serializer {
    /// Stores `Data` values as they are (the identity codec).
    public static let data = Serializer(
        name: "data",
        encode: { object in
            guard let data = object as? Data else {
                throw SerializationError(.typeMismatch, stage: "data", reason: "expected Data, got \(type(of: object))")
            }
            return data
        },
        decode: { $0 }
    )

    /// Stores values of one `Codable` type as JSON (sorted keys, so the bytes are stable).
    public static func codable<T: Codable & Sendable>(_ type: T.Type) -> Serializer {
        Serializer(
            name: "json",
            encode: { object in
                guard let value = object as? T else {
                    throw SerializationError(
                        .typeMismatch, stage: "json", reason: "expected \(T.self), got \(Swift.type(of: object))")
                }
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    return try encoder.encode(value)
                } catch {
                    throw SerializationError(.codecFailed, stage: "json", reason: "\(error)")
                }
            },
            decode: { data in
                do {
                    return try JSONDecoder().decode(T.self, from: data)
                } catch {
                    throw SerializationError(.codecFailed, stage: "json", reason: "\(error)")
                }
            }
        )
    }
}
