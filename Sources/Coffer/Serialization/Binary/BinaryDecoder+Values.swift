import Foundation

/// Reading one tagged value at an offset: scalars with the conversions JSON users expect, the
/// types with tags of their own, packed arrays, and every other type through its `init(from:)`.
extension BinaryDecodingState {
    /// Runs a read of the format, turning its error into `DecodingError.dataCorrupted` at `path`.
    @inline(__always)
    func reading<R>(
        _ path: @autoclosure () -> [any CodingKey], _ body: () throws(BinaryFormatError) -> R
    ) throws -> R {
        do {
            return try body()
        } catch {
            throw Self.corrupt(error, path())
        }
    }

    func decodeBool(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        let tag = try tag(at: offset, path())
        guard tag == .true || tag == .false else { throw Self.unexpected(tag, Bool.self, path()) }
        noteScalar(offset, offset + 1)
        return tag == .true
    }

    func decodeString(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        let tag = try self.tag(at: offset, path())
        guard tag == .string || tag == .url || tag == .decimal else { throw Self.unexpected(tag, String.self, path()) }
        return try reading(path()) { () throws(BinaryFormatError) in
            var cursor = offset + 1
            let length = try reader.length(&cursor)
            try charge(length, at: cursor)
            let text = try reader.string(at: cursor, count: length)
            noteScalar(offset, cursor + length)
            return text
        }
    }

    func decodeInteger<Integer: FixedWidthInteger>(
        _ type: Integer.Type, at offset: Int, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> Integer {
        let tag = try self.tag(at: offset, path())
        var cursor = offset + 1
        let result: Integer?
        switch tag {
        case .int:
            let raw = try reading(path()) { () throws(BinaryFormatError) in try reader.varint(&cursor) }
            result = Integer(exactly: Self.unzigzag(raw))
        case .uint:
            result = Integer(
                exactly: try reading(path()) { () throws(BinaryFormatError) in try reader.varint(&cursor) })
        case .float64, .float32:
            // A whole number stored as floating point, as JSON decoders accept `3.0` for an Int.
            let value = try decodeDouble(at: offset, path())
            result = value.rounded() == value ? Integer(exactly: value) : nil
        default: throw Self.unexpected(tag, Integer.self, path())
        }
        guard let result else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: path(), debugDescription: "the number does not fit in \(Integer.self)"))
        }
        return result
    }

    @inline(__always)
    static func unzigzag(_ raw: UInt64) -> Int64 {
        Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    func decodeDouble(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        let tag = try self.tag(at: offset, path())
        var cursor = offset + 1
        let value = try reading(path()) { () throws(BinaryFormatError) -> Double? in
            switch tag {
            case .float64: return Double(bitPattern: try reader.fixed64(&cursor))
            case .float32: return Double(Float(bitPattern: try reader.fixed32(&cursor)))
            case .int: return Double(Self.unzigzag(try reader.varint(&cursor)))
            case .uint: return Double(try reader.varint(&cursor))
            default: return nil
            }
        }
        guard let value else { throw Self.unexpected(tag, Double.self, path()) }
        noteScalar(offset, cursor)
        return value
    }

    func decodeFloat(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let tag = try self.tag(at: offset, path())
        if tag == .float32 {
            return try reading(path()) { () throws(BinaryFormatError) in
                var cursor = offset + 1
                return Float(bitPattern: try reader.fixed32(&cursor))
            }
        }
        return Float(try decodeDouble(at: offset, path()))
    }

    /// Decodes any value at `offset`; `key` is appended to the coding path of nested values.
    func decodeValue<T: Decodable>(_ type: T.Type, at offset: Int, key: (any CodingKey)? = nil) throws -> T {
        func path() -> [any CodingKey] { key.map { codingPath + [$0] } ?? codingPath }
        if T.self == String.self { return unsafeBitCast(try decodeString(at: offset, path()), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try decodeInteger(Int.self, at: offset, path()), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try decodeDouble(at: offset, path()), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try decodeBool(at: offset, path()), to: T.self) }
        if T.self == Date.self { return unsafeBitCast(try decodeDate(at: offset, path()), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try decodeData(at: offset, path()), to: T.self) }
        let id = ObjectIdentifier(T.self)
        if id == BinaryKnownTypes.shared.strings, try tag(at: offset, path()) == .strings {
            return unsafeBitCast(try decodeStrings(at: offset, path()), to: T.self)
        }
        if BinaryKnownTypes.shared.packsDirectly(id),
            try packedKind(at: offset, path()).map({ Self.kind($0, fits: id) }) == true
        {
            return try decodePacked(T.self, at: offset, path())
        }
        if T.self == URL.self { return unsafeBitCast(try decodeURL(at: offset, path()), to: T.self) }
        if T.self == UUID.self { return unsafeBitCast(try decodeUUID(at: offset, path()), to: T.self) }
        if T.self == Decimal.self { return unsafeBitCast(try decodeDecimal(at: offset, path()), to: T.self) }
        return try decodeNested(T.self, at: offset, key: key)
    }

    /// Decodes a value of a type without a tag of its own through its `init(from:)`.
    func decodeNested<T: Decodable>(_ type: T.Type, at offset: Int, key: (any CodingKey)?) throws -> T {
        guard depth < BinaryFormat.maximumDepth else {
            throw Self.corrupt(BinaryFormatError(.tooDeep, at: offset), codingPath)
        }
        let saved = position
        position = offset
        depth += 1
        if let key { codingPath.append(key) }
        defer {
            position = saved
            depth -= 1
            if key != nil { codingPath.removeLast() }
        }
        return try T(from: self)
    }
}
