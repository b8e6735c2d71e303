import Foundation

/// The types with tags of their own, and the packed arrays, each also read from the form its own
/// `Codable` conformance (or JSON) would have written, so a changed field type still decodes.
extension BinaryDecodingState {
    func decodeDate(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Date {
        let tag = try self.tag(at: offset, path())
        switch tag {
        case .date:
            return try reading(path()) { () throws(BinaryFormatError) in
                var cursor = offset + 1
                return Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.fixed64(&cursor)))
            }
        case .float64, .float32, .int, .uint:
            // `Date`'s own Codable form: seconds since the reference date.
            return Date(timeIntervalSinceReferenceDate: try decodeDouble(at: offset, path()))
        default: throw Self.unexpected(tag, Date.self, path())
        }
    }

    func decodeData(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Data {
        let tag = try self.tag(at: offset, path())
        guard tag == .data else {
            // `Data`'s own Codable form is an unkeyed container of bytes.
            guard tag == .array || tag == .packed else { throw Self.unexpected(tag, Data.self, path()) }
            return try decodeNested(Data.self, at: offset, key: nil)
        }
        return try reading(path()) { () throws(BinaryFormatError) in
            var cursor = offset + 1
            let length = try reader.length(&cursor)
            try charge(length, at: cursor)
            let bytes = reader.bytes(at: cursor, count: length)
            return Data(buffer: bytes)
        }
    }

    func decodeURL(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> URL {
        let tag = try self.tag(at: offset, path())
        guard tag == .url || tag == .string else {
            guard tag == .keyed else { throw Self.unexpected(tag, URL.self, path()) }
            return try decodeNested(URL.self, at: offset, key: nil)
        }
        guard let url = URL(string: try decodeString(at: offset, path())) else {
            throw Self.corrupt(BinaryFormatError(.invalidPayload, at: offset), path())
        }
        return url
    }

    func decodeUUID(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> UUID {
        let tag = try self.tag(at: offset, path())
        switch tag {
        case .uuid:
            return try reading(path()) { () throws(BinaryFormatError) in
                guard reader.count - offset - 1 >= 16 else { throw BinaryFormatError(.truncated, at: offset + 1) }
                var uuid = UUID().uuid
                withUnsafeMutableBytes(of: &uuid) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(reader.bytes(at: offset + 1, count: 16)))
                }
                return UUID(uuid: uuid)
            }
        case .string:
            guard let uuid = UUID(uuidString: try decodeString(at: offset, path())) else {
                throw Self.corrupt(BinaryFormatError(.invalidPayload, at: offset), path())
            }
            return uuid
        default: throw Self.unexpected(tag, UUID.self, path())
        }
    }

    func decodeDecimal(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Decimal {
        let tag = try self.tag(at: offset, path())
        switch tag {
        case .decimal, .string:
            let text = try decodeString(at: offset, path())
            guard text.utf8.count <= BinaryFormat.maximumDecimalLength,
                let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN
            else {
                throw Self.corrupt(BinaryFormatError(.invalidPayload, at: offset), path())
            }
            return value
        case .int: return Decimal(try decodeInteger(Int64.self, at: offset, path()))
        case .uint: return Decimal(try decodeInteger(UInt64.self, at: offset, path()))
        case .float64, .float32:
            // `Decimal(Double)` traps on an infinity.
            let double = try decodeDouble(at: offset, path())
            guard double.isFinite else { throw Self.corrupt(BinaryFormatError(.invalidPayload, at: offset), path()) }
            return try notNaN(Decimal(double), at: offset, path())
        case .keyed: return try notNaN(try decodeNested(Decimal.self, at: offset, key: nil), at: offset, path())
        default: throw Self.unexpected(tag, Decimal.self, path())
        }
    }

    /// Refuses a NaN `Decimal` as malformed.
    ///
    /// The format has no NaN `Decimal` (its text does not decode), so a decoded one would not
    /// survive being encoded again. A NaN or out-of-range number (`Decimal(Double.nan)`,
    /// `Decimal(1e300)`) and Decimal's own keyed form of NaN give one.
    private func notNaN(
        _ value: Decimal, at offset: Int, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> Decimal {
        guard value.isNaN else { return value }
        throw Self.corrupt(BinaryFormatError(.invalidPayload, at: offset), path())
    }

    /// A `strings` array (the caller checked the tag).
    func decodeStrings(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> [String] {
        try reading(path()) { () throws(BinaryFormatError) in
            var cursor = offset + 1
            let count = try reader.length(&cursor)
            try charge(count * MemoryLayout<String>.stride, at: cursor)
            var strings: [String] = []
            strings.reserveCapacity(count)
            for _ in 0..<count {
                let length = try reader.length(&cursor)
                try charge(length, at: cursor)
                strings.append(try reader.string(at: cursor, count: length))
                cursor += length
            }
            noteScalar(offset, cursor)
            return strings
        }
    }

    /// The element kind of the packed array at `offset`, or nil when the value is not one.
    func packedKind(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> BinaryFormat.PackedKind? {
        guard try tag(at: offset, path()) == .packed else { return nil }
        return try reading(path()) { () throws(BinaryFormatError) in
            guard let kind = BinaryFormat.PackedKind(rawValue: try reader.byte(at: offset + 1)) else {
                throw BinaryFormatError(.invalidTag, at: offset + 1)
            }
            return kind
        }
    }

    /// Whether packed elements of `kind` decode straight into the array type `id` names.
    static func kind(_ kind: BinaryFormat.PackedKind, fits id: ObjectIdentifier) -> Bool {
        let known = BinaryKnownTypes.shared
        switch kind {
        case .int: return id == known.ints || id == known.int64s
        case .uint: return id == known.uint8s
        case .float64: return id == known.doubles
        case .float32: return id == known.floats
        case .bool: return id == known.bools
        }
    }

    /// A packed array decoded in one pass into `T`, an array of the stored kind's type (checked
    /// by the caller with ``kind(_:fits:)``).
    func decodePacked<T>(_ type: T.Type, at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        let id = ObjectIdentifier(T.self)
        let known = BinaryKnownTypes.shared
        return try reading(path()) { () throws(BinaryFormatError) -> T in
            var cursor = offset + 2
            if id == known.ints {
                return unsafeBitCast(try packedIntegers(Int.self, &cursor, signed: true), to: T.self)
            }
            if id == known.int64s {
                return unsafeBitCast(try packedIntegers(Int64.self, &cursor, signed: true), to: T.self)
            }
            if id == known.uint8s { return unsafeBitCast(try packedBytes(&cursor), to: T.self) }
            if id == known.doubles {
                let count = try reader.length(&cursor, minimumSize: 8)
                try charge(count * 8, at: cursor)
                var values: [Double] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(Double(bitPattern: try reader.fixed64(&cursor))) }
                return unsafeBitCast(values, to: T.self)
            }
            if id == known.floats {
                let count = try reader.length(&cursor, minimumSize: 4)
                try charge(count * 4, at: cursor)
                var values: [Float] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(Float(bitPattern: try reader.fixed32(&cursor))) }
                return unsafeBitCast(values, to: T.self)
            }
            let count = try reader.length(&cursor)
            try charge(count, at: cursor)
            var values: [Bool] = []
            values.reserveCapacity(count)
            for _ in 0..<count {
                let byte = try reader.byte(at: cursor)
                guard byte <= 1 else { throw BinaryFormatError(.invalidPayload, at: cursor) }
                values.append(byte == 1)
                cursor += 1
            }
            return unsafeBitCast(values, to: T.self)
        }
    }

    /// Packed varints as `Integer`s; every value is known to fit (64-bit targets).
    private func packedIntegers<Integer: FixedWidthInteger>(
        _ type: Integer.Type, _ cursor: inout Int, signed: Bool
    ) throws(BinaryFormatError) -> [Integer] {
        let count = try reader.length(&cursor)
        try charge(count * MemoryLayout<Integer>.stride, at: cursor)
        var values: [Integer] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            let raw = try reader.varint(&cursor)
            values.append(Integer(truncatingIfNeeded: signed ? Self.unzigzag(raw) : Int64(bitPattern: raw)))
        }
        return values
    }

    /// Packed unsigned varints as bytes; a value over 255 is `invalidPayload`.
    private func packedBytes(_ cursor: inout Int) throws(BinaryFormatError) -> [UInt8] {
        let count = try reader.length(&cursor)
        try charge(count, at: cursor)
        var values: [UInt8] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            let at = cursor
            guard let value = UInt8(exactly: try reader.varint(&cursor)) else {
                throw BinaryFormatError(.invalidPayload, at: at)
            }
            values.append(value)
        }
        return values
    }
}
