import Foundation

/// Typed decoding that skips the `any Sendable` detour.
///
/// A typed read (`object(forKey:inCollection:as:)`, typed enumerations) would otherwise decode into an
/// existential box and cast it back to the caller's type on every row — a heap box for any value larger
/// than three words, and a runtime cast. When the codec is known to produce exactly the requested type
/// (the identity codec for `Data`, a Codable codec registered for that type), the bytes are decoded
/// straight into it. Callers ask ``SerializerChain/directRead(as:)`` once, then decode every row
/// without optionals or casts.
extension Serializer {
    /// What a codec can decode without boxing.
    enum DirectDecoding: Sendable {
        /// `Data` as stored (``Serializer/data``).
        case identity
        /// One `Decodable` type in any ``CodableFormat``, JSON with the codec's own decoder.
        case codable(type: ObjectIdentifier, reader: CodableReader)
    }

    /// Whether ``decodeDirectly(_:as:)`` can produce a `T`.
    func decodesDirectly<T>(as type: T.Type) -> Bool {
        switch direct {
        case .identity: T.self == Data.self
        case .codable(let codecType, _): codecType == ObjectIdentifier(T.self)
        case nil: false
        }
    }

    /// Decodes `data` straight into `T`; call only when ``decodesDirectly(as:)`` said yes.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/codecFailed``, or
    ///   ``SerializationError/Code/typeMismatch`` when the codec does not produce `T`.
    func decodeDirectly<T: Decodable>(_ data: Data, as type: T.Type) throws(SerializationError) -> T {
        switch direct {
        case .identity where T.self == Data.self:
            // Same type, checked just above: the bit pattern is the value.
            return unsafeBitCast(data, to: T.self)
        case .codable(let codecType, let reader) where codecType == ObjectIdentifier(T.self):
            do {
                return try reader.decode(T.self, from: data)
            } catch {
                throw SerializationError(.codecFailed, stage: name, reason: Self.summary(of: error, for: T.self))
            }
        default:
            throw SerializationError(.typeMismatch, stage: name, reason: "the codec does not produce \(T.self)")
        }
    }
}

extension SerializerChain {
    /// How a typed read of `T` can skip the `any Sendable` detour.
    enum DirectRead {
        /// The stored bytes already are the value (`Data` through the identity codec, no stages):
        /// hand them out untouched.
        case asIs
        /// ``SerializerChain/deserializeDirectly(_:as:collection:key:)`` produces a `T`.
        case decode
    }

    /// How reads of `T` can bypass the boxed path; nil when they cannot.
    ///
    /// Ask once per read or enumeration, then decode every row accordingly.
    func directRead<T>(as type: T.Type) -> DirectRead? {
        guard configurationError == nil, codec.decodesDirectly(as: T.self) else { return nil }
        if stages.isEmpty, case .identity? = codec.direct { return .asIs }
        return .decode
    }

    /// Turns stored bytes straight into a `T`; call only when ``directRead(as:)`` said `.decode`.
    ///
    /// Stages are undone first, with the same errors as ``deserialize(_:collection:key:)``.
    func deserializeDirectly<T: Decodable>(
        _ data: Data, as type: T.Type, collection: String, key: String
    ) throws(SerializationError) -> T {
        do throws(SerializationError) {
            let bytes = stages.isEmpty ? data : try undoStages(of: data, collection: collection, key: key)
            return try codec.decodeDirectly(bytes, as: T.self)
        } catch {
            throw error.at(collection: collection, key: key)
        }
    }
}
