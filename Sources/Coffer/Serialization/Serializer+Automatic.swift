public import Foundation

/// Bytes stored by the ``Serializer/automatic`` codec, waiting for a typed read to decode them.
///
/// Returned by untyped reads of collections without a registered codec; a typed read such as
/// `object(forKey:inCollection:as:)` decodes it into the requested `Decodable` type.
public struct EncodedValue: Sendable, Hashable {
    /// The stored bytes: JSON, or Coffer's binary format when the database writes it
    /// (``DatabaseOptions/codableFormat``).
    public let data: Data

    /// The format of ``data``.
    public var format: CodableFormat { CodableFormat.detect(data) }

    /// Decodes the bytes as `T`, whatever their ``CodableFormat``.
    /// - Throws: ``SerializationError`` (`.codecFailed`) when the bytes do not decode as `T`.
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        do {
            return try CodableReader(json: JSONDecoder()).decode(T.self, from: data)
        } catch {
            let format = self.format
            throw SerializationError(
                .codecFailed, stage: format.codecName, reason: Serializer.summary(of: error, for: T.self))
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
    public static let automatic: Serializer = automatic(writing: .json)

    /// The default codec writing `format` (``DatabaseOptions/codableFormat``); it reads every
    /// format, and untyped reads return an ``EncodedValue`` as with ``automatic``.
    public static func automatic(writing format: CodableFormat) -> Serializer {
        let name = "automatic-" + format.codecName
        let writer = CodableWriter(format: format)
        var serializer = Serializer(
            name: name,
            encode: { object in
                if let encoded = object as? EncodedValue { return encoded.data }
                guard let encodable = object as? any Encodable else {
                    throw SerializationError(
                        .typeMismatch, stage: name,
                        reason: "\(type(of: object)) is not Encodable; register a serializer for this collection")
                }
                do {
                    return try writer.encode(encodable)
                } catch {
                    throw SerializationError(
                        .codecFailed, stage: name,
                        reason: "cannot encode \(type(of: object)) as \(format.codecName): \(type(of: error))")
                }
            },
            decode: { EncodedValue(data: $0) }
        )
        serializer.decodesToEncodedValue = true
        serializer.writeFormat = format
        return serializer
    }
}
