public import Foundation

extension Serializer {
    /// Stores values of one `Codable` type: Coffer's default codec, writing JSON unless another
    /// ``CodableFormat`` is chosen.
    ///
    /// Whatever it writes, it reads JSON, binary and property-list rows alike (the first bytes
    /// tell them apart), so a collection can change format without rewriting its rows.
    ///
    /// By default the JSON encoder sorts keys (`.sortedKeys`), so equal values always give equal
    /// bytes. The encoder and decoder are created once and shared by every call — on this
    /// toolchain `JSONEncoder` and `JSONDecoder` are `Sendable` and safe to use from several
    /// threads — so do not change an instance after handing it over.
    ///
    /// - Parameters:
    ///   - type: The type stored in the collection.
    ///   - format: The format new values are written in; `.binary` rows cannot be read by Coffer
    ///     versions before the binary format.
    ///   - encoder: A configured JSON encoder for `.json`; `nil` uses one with `.sortedKeys`.
    ///   - decoder: A configured JSON decoder for JSON rows; `nil` uses a default one.
    /// - Returns: A codec whose encode throws ``SerializationError/Code/typeMismatch`` for
    ///   objects of another type and ``SerializationError/Code/codecFailed`` when encoding or
    ///   decoding fails.
    public static func codable<T: Codable & Sendable>(
        _ type: T.Type,
        format: CodableFormat = .json,
        encoder: JSONEncoder? = nil,
        decoder: JSONDecoder? = nil
    ) -> Serializer {
        let reader = CodableReader(json: decoder ?? JSONDecoder())
        let writer = CodableWriter(format: format, json: encoder)
        let name = format.codecName
        var codec = Serializer(
            name: name,
            encode: { object in
                let value = try Self.cast(object, to: T.self, codec: name)
                do {
                    return try writer.encode(value)
                } catch {
                    throw SerializationError(.codecFailed, stage: name, reason: Self.summary(of: error, for: T.self))
                }
            },
            decode: { data in
                do {
                    return try reader.decode(T.self, from: data)
                } catch {
                    throw SerializationError(.codecFailed, stage: name, reason: Self.summary(of: error, for: T.self))
                }
            }
        )
        codec.direct = .codable(type: ObjectIdentifier(T.self), reader: reader)
        codec.valueType = ValueType(T.self)
        codec.writeFormat = format
        return codec
    }

    /// Stores values of one `Codable` type in Coffer's compact binary format: the same as
    /// ``codable(_:format:encoder:decoder:)`` with `format: .binary`.
    ///
    /// It reads JSON and property-list rows too. Coffer versions before the binary format cannot
    /// read what it writes.
    public static func binary<T: Codable & Sendable>(_ type: T.Type) -> Serializer {
        codable(T.self, format: .binary)
    }

    /// Stores values of one `Codable` type as a binary property list, like YapDatabase's Swift
    /// `codableSerializer`; reads JSON and binary rows too.
    ///
    /// - Parameter type: The type stored in the collection.
    /// - Returns: A codec whose encode throws ``SerializationError/Code/typeMismatch`` for
    ///   objects of another type and ``SerializationError/Code/codecFailed`` when encoding or
    ///   decoding fails.
    public static func propertyList<T: Codable & Sendable>(_ type: T.Type) -> Serializer {
        codable(T.self, format: .propertyList)
    }

    /// The JSON encoder used when the caller gives none: sorted keys, nothing else changed.
    static func canonicalJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Checks an object's type, throwing a type-mismatch error that names both types.
    ///
    /// An object whose dynamic type is exactly `T` (nearly always) takes a comparison of metadata
    /// pointers and a copy. `as?` from `any Sendable` to a generic `T` goes through the runtime's
    /// general cast and a lookup of `Optional<T>`'s metadata for its result, on every value.
    static func cast<T>(_ object: any Sendable, to type: T.Type, codec: String) throws(SerializationError) -> T {
        if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) { return copy(object, as: T.self) }
        return try castGenerally(object, to: T.self, codec: codec)
    }

    /// `object`, whose dynamic type is `T`, as `T` (the existential is opened at the call).
    private static func copy<T, Value>(_ object: Value, as type: T.Type) -> T {
        unsafeBitCast(object, to: T.self)
    }

    /// ``cast(_:to:codec:)`` for an object whose type is not exactly `T` (a subclass, a value for
    /// an existential `T`, another type); out of line, so that the common case never touches
    /// `Optional<T>`.
    @inline(never)
    private static func castGenerally<T>(
        _ object: any Sendable, to type: T.Type, codec: String
    ) throws(SerializationError) -> T {
        guard let value = object as? T else {
            throw SerializationError(
                .typeMismatch, stage: codec, reason: "expected \(T.self), got \(Swift.type(of: object))")
        }
        return value
    }

    /// Describes a coding error without its debug text, which may quote parts of the value.
    static func summary<T>(of error: any Error, for type: T.Type) -> String {
        guard let error = error as? DecodingError else {
            if error is EncodingError { return "cannot encode \(T.self): invalid value" }
            return "cannot code \(T.self): \(Swift.type(of: error))"
        }
        switch error {
        case .dataCorrupted(let context) where context.underlyingError is BinaryFormatError:
            return "cannot decode \(T.self): \(context.debugDescription)"
        case .typeMismatch: return "cannot decode \(T.self): type mismatch"
        case .valueNotFound: return "cannot decode \(T.self): value not found"
        case .keyNotFound: return "cannot decode \(T.self): key not found"
        case .dataCorrupted: return "cannot decode \(T.self): data corrupted"
        @unknown default: return "cannot decode \(T.self)"
        }
    }
}
