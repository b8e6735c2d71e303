public import Foundation

/// Turns objects into bytes and back: the codec at the start of a serializer chain.
///
/// A serializer is a pair of closures; the static factories cover the common formats:
/// ``codable(_:format:encoder:decoder:)`` (JSON, the default, or another ``CodableFormat``),
/// ``binary(_:)`` (Coffer's compact binary format), ``propertyList(_:)`` (binary property
/// list), ``data`` (identity), ``string`` (UTF-8), ``timestamp`` (YapDatabase's 8-byte date)
/// and ``custom(_:name:encode:decode:)``.
///
/// The closures may be called from any connection's queue at the same time, so they must
/// not share mutable state.
public struct Serializer: Sendable {
    /// A short name used in error messages ("json", "data", …).
    public var name: String
    let encodeBody: @Sendable (any Sendable) throws -> Data
    let decodeBody: @Sendable (Data) throws -> any Sendable
    /// Set by the factories whose output type is known, for typed reads without boxing.
    var direct: DirectDecoding?
    /// Whether decoding gives an ``EncodedValue`` of the encoded bytes rather than a value of the
    /// written type (``automatic``): the core then caches that, not the value it was given.
    var decodesToEncodedValue = false
    /// The one type the codec stores, when a factory knows it: what a ``TypedCollection`` checks
    /// its own type against, so a mismatch is an error before any row is read or written.
    var valueType: ValueType?
    /// The format a Codable codec writes: what re-encoding compares stored rows with.
    var writeFormat: CodableFormat?

    /// Creates a codec from an encoding and a decoding closure.
    ///
    /// Errors the closures throw that are not a ``SerializationError`` are reported as
    /// ``SerializationError/Code/codecFailed``.
    ///
    /// - Parameters:
    ///   - name: A short name used in error messages.
    ///   - encode: Turns an object into bytes; called on any thread.
    ///   - decode: Turns bytes back into an object; called on any thread.
    public init(
        name: String,
        encode: @escaping @Sendable (any Sendable) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> any Sendable
    ) {
        self.name = name
        self.encodeBody = encode
        self.decodeBody = decode
    }

    /// Encodes one object.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/typeMismatch`` when
    ///   the object is not of the codec's type, or ``SerializationError/Code/codecFailed``.
    public func encode(_ object: any Sendable) throws(SerializationError) -> Data {
        do {
            return try encodeBody(object)
        } catch let error as SerializationError {
            throw error
        } catch {
            throw SerializationError(.codecFailed, stage: name, reason: "encoding failed: \(type(of: error))")
        }
    }

    /// Decodes one object.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/codecFailed`` when
    ///   the bytes do not decode.
    public func decode(_ data: Data) throws(SerializationError) -> any Sendable {
        do {
            return try decodeBody(data)
        } catch let error as SerializationError {
            throw error
        } catch {
            throw SerializationError(.codecFailed, stage: name, reason: "decoding failed: \(type(of: error))")
        }
    }
}

/// The type a codec stores: its identity, to compare with a handle's type, and its name, for
/// error messages.
struct ValueType: Sendable {
    let id: ObjectIdentifier
    let name: String

    init<T>(_ type: T.Type) {
        id = ObjectIdentifier(type)
        name = String(reflecting: type)
    }
}
