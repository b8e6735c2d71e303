public import Foundation

extension Serializer {
    /// Stores `Data` values as they are (the identity codec).
    ///
    /// Encoding any other type throws ``SerializationError/Code/typeMismatch``.
    public static let data: Serializer = {
        var codec = Serializer(
            name: "data",
            encode: { object in try cast(object, to: Data.self, codec: "data") },
            decode: { $0 }
        )
        codec.direct = .identity
        codec.valueType = ValueType(Data.self)
        return codec
    }()

    /// Stores `String` values as their UTF-8 bytes.
    ///
    /// Encoding any other type throws ``SerializationError/Code/typeMismatch``; decoding bytes
    /// that are not valid UTF-8 throws ``SerializationError/Code/codecFailed``.
    public static let string: Serializer = {
        var codec = Serializer(
            name: "string",
            encode: { object in Data(try cast(object, to: String.self, codec: "string").utf8) },
            decode: { data in
                guard let string = String(validating: data, as: UTF8.self) else {
                    throw SerializationError(.codecFailed, stage: "string", reason: "bytes are not valid UTF-8")
                }
                return string
            }
        )
        codec.valueType = ValueType(String.self)
        return codec
    }()

    /// Stores `Date` values as YapDatabase's timestamp serializer does: the 8-byte IEEE 754
    /// `timeIntervalSinceReferenceDate`, little-endian.
    ///
    /// YapDatabase copies the raw `double` in native byte order, which is little-endian on
    /// every Apple and Linux machine it runs on, so its blobs read back here unchanged.
    /// Encoding any other type throws ``SerializationError/Code/typeMismatch``; decoding a blob
    /// that is not exactly 8 bytes throws ``SerializationError/Code/codecFailed``.
    public static let timestamp: Serializer = {
        var codec = Serializer(
            name: "timestamp",
            encode: { object in
                let date = try cast(object, to: Date.self, codec: "timestamp")
                let bits = date.timeIntervalSinceReferenceDate.bitPattern.littleEndian
                return withUnsafeBytes(of: bits) { Data($0) }
            },
            decode: { data in
                guard data.count == 8 else {
                    throw SerializationError(
                        .codecFailed, stage: "timestamp", reason: "expected 8 bytes, got \(data.count)")
                }
                var bits: UInt64 = 0
                for (shift, byte) in zip(stride(from: 0, to: 64, by: 8), data) {
                    bits |= UInt64(byte) << UInt64(shift)
                }
                return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
            }
        )
        codec.valueType = ValueType(Date.self)
        return codec
    }()

    /// Creates a codec for one type from typed closures, checking the type for you.
    ///
    /// Errors the closures throw are reported as ``SerializationError/Code/codecFailed``
    /// unless they already are a ``SerializationError``.
    ///
    /// - Parameters:
    ///   - type: The type stored in the collection.
    ///   - name: A short name used in error messages.
    ///   - encode: Turns a value into bytes; called on any thread.
    ///   - decode: Turns bytes back into a value; called on any thread.
    /// - Returns: A codec whose encode throws ``SerializationError/Code/typeMismatch`` for
    ///   objects of another type.
    public static func custom<T: Sendable>(
        _ type: T.Type,
        name: String,
        encode: @escaping @Sendable (T) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> T
    ) -> Serializer {
        var codec = Serializer(
            name: name,
            encode: { object in try encode(try cast(object, to: T.self, codec: name)) },
            decode: { data in try decode(data) }
        )
        codec.valueType = ValueType(T.self)
        return codec
    }
}
