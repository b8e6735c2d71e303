public import Foundation

/// Bytes stored by the ``Serializer/automatic`` codec, waiting for a typed read to decode them.
///
/// Returned by untyped reads of collections without a registered codec; a typed read such as
/// `object(forKey:inCollection:as:)` decodes it as JSON into the requested `Decodable` type.
public struct EncodedValue: Sendable, Hashable {
    /// The stored JSON bytes.
    public let data: Data

    /// Decodes the bytes as `T`.
    /// - Throws: ``SerializationError`` (`.codecFailed`) when the JSON does not decode as `T`.
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw SerializationError(.codecFailed, stage: "json", reason: Serializer.summary(of: error, for: T.self))
        }
    }
}

extension Serializer {
    /// The default codec for collections without a registered one: any `Encodable` value is
    /// stored as JSON (sorted keys); reads return an ``EncodedValue`` that typed reads decode.
    ///
    /// Every untyped read returns the ``EncodedValue`` — on the connection that wrote the row
    /// too, and whatever is cached — since the JSON cannot tell a `Date` from a `Double` or
    /// `Data` from a `String`: only a typed read knows what to decode.
    public static let automatic: Serializer = {
        var serializer = Serializer(
            name: "automatic-json",
            encode: { object in
                if let encoded = object as? EncodedValue { return encoded.data }
                guard let encodable = object as? any Encodable else {
                    throw SerializationError(
                        .typeMismatch, stage: "automatic-json",
                        reason: "\(type(of: object)) is not Encodable; register a serializer for this collection")
                }
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    return try encoder.encode(encodable)
                } catch {
                    throw SerializationError(
                        .codecFailed, stage: "automatic-json",
                        reason: "cannot encode \(type(of: object)) as JSON: \(type(of: error))")
                }
            },
            decode: { EncodedValue(data: $0) }
        )
        serializer.decodesToEncodedValue = true
        return serializer
    }()
}
