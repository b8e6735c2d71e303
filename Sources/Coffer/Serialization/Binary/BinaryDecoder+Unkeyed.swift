/// An unkeyed container over a tagged array, a packed array of scalars or an array of strings.
struct BinaryUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let state: BinaryDecodingState
    let codingPath: [any CodingKey]
    private let layout: BinaryFormat.Tag
    /// The packed arrays' element kind.
    private let kind: BinaryFormat.PackedKind
    private let depth: Int
    /// Where the next element starts (its tag for tagged arrays, its bytes otherwise).
    private var offset: Int
    /// Elements left in a packed or string array.
    private var remaining: Int
    /// Where the elements of a tagged array start, for counting them.
    private let firstElement: Int
    private(set) var currentIndex = 0

    init(
        state: BinaryDecodingState, tag: BinaryFormat.Tag, at offset: Int, depth: Int, path: [any CodingKey]
    ) throws(BinaryFormatError) {
        self.state = state
        self.layout = tag
        self.depth = depth
        codingPath = path
        var cursor = offset + 1
        switch tag {
        case .packed:
            guard let kind = BinaryFormat.PackedKind(rawValue: try state.reader.byte(at: cursor)) else {
                throw BinaryFormatError(.invalidTag, at: cursor)
            }
            self.kind = kind
            cursor += 1
            let size = kind == .float64 ? 8 : kind == .float32 ? 4 : 1
            remaining = try state.reader.length(&cursor, minimumSize: size)
        case .strings:
            kind = .bool
            remaining = try state.reader.length(&cursor)
        default:
            kind = .bool
            remaining = 0
        }
        self.offset = cursor
        firstElement = cursor
    }

    var count: Int? {
        guard layout == .array else { return currentIndex + remaining }
        var cursor = firstElement
        var elements = 0
        while (try? state.reader.byte(at: cursor)) != BinaryFormat.Tag.end.rawValue {
            guard let next = try? state.reader.skip(cursor, depth: depth + 1) else { return nil }
            cursor = next
            elements += 1
        }
        return elements
    }

    var isAtEnd: Bool {
        guard layout == .array else { return remaining == 0 }
        // A damaged array ends here for `isAtEnd`; decoding the element reports the damage.
        return ((try? state.reader.byte(at: offset)) ?? BinaryFormat.Tag.end.rawValue) == BinaryFormat.Tag.end.rawValue
    }

    private var path: [any CodingKey] { codingPath + [BinaryCodingKey(index: currentIndex)] }

    private func endError(_ type: Any.Type) -> DecodingError {
        .valueNotFound(
            type, DecodingError.Context(codingPath: path, debugDescription: "the array has no more elements"))
    }

    /// Moves past the current element of a tagged array and returns where it starts.
    private mutating func nextTagged(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else { throw endError(type) }
        let element = offset
        let depth = depth
        offset = try state.reading(path) { () throws(BinaryFormatError) in
            try state.reader.skip(element, depth: depth + 1)
        }
        currentIndex += 1
        return element
    }

    /// The next element of a packed array as one of its scalars.
    private mutating func nextPacked(_ type: Any.Type) throws -> PackedScalar {
        guard remaining > 0 else { throw endError(type) }
        let kind = kind
        let scalar = try state.reading(path) { () throws(BinaryFormatError) -> PackedScalar in
            switch kind {
            case .bool:
                let byte = try state.reader.byte(at: offset)
                guard byte <= 1 else { throw BinaryFormatError(.invalidPayload, at: offset) }
                offset += 1
                return .bool(byte == 1)
            case .int: return .int(BinaryDecodingState.unzigzag(try state.reader.varint(&offset)))
            case .uint: return .uint(try state.reader.varint(&offset))
            case .float64: return .double(Double(bitPattern: try state.reader.fixed64(&offset)))
            case .float32: return .float(Float(bitPattern: try state.reader.fixed32(&offset)))
            }
        }
        remaining -= 1
        currentIndex += 1
        return scalar
    }

    private enum PackedScalar {
        case bool(Bool), int(Int64), uint(UInt64), double(Double), float(Float)
    }

    mutating func decodeNil() throws -> Bool {
        guard layout == .array else {
            guard remaining > 0 else { throw endError(Never.self) }
            return false
        }
        guard !isAtEnd else { throw endError(Never.self) }
        guard try state.tag(at: offset, path) == .null else { return false }
        _ = try nextTagged(Never.self)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        switch layout {
        case .array: return try state.decodeBool(at: try nextTagged(type), path)
        case .packed:
            if case .bool(let value) = try nextPacked(type) { return value }
            throw mismatch(type)
        default: throw mismatch(type)
        }
    }

    mutating func decode(_ type: String.Type) throws -> String {
        switch layout {
        case .array: return try state.decodeString(at: try nextTagged(type), path)
        case .strings:
            guard remaining > 0 else { throw endError(type) }
            let text = try state.reading(path) { () throws(BinaryFormatError) in
                let length = try state.reader.length(&offset)
                try state.charge(length, at: offset)
                defer { offset += length }
                return try state.reader.string(at: offset, count: length)
            }
            remaining -= 1
            currentIndex += 1
            return text
        default: throw mismatch(type)
        }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        guard layout == .packed else { return try state.decodeDouble(at: try nextTagged(type), path) }
        switch try nextPacked(type) {
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .bool: throw mismatch(type)
        }
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        guard layout == .packed else { return try state.decodeFloat(at: try nextTagged(type), path) }
        if case .float(let value) = try nextPacked(type) { return value }
        return Float(try decode(Double.self))
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        switch layout {
        case .array: return try state.decodeInteger(Integer.self, at: try nextTagged(type), path)
        case .packed:
            let result: Integer?
            switch try nextPacked(type) {
            case .int(let value): result = Integer(exactly: value)
            case .uint(let value): result = Integer(exactly: value)
            default: throw mismatch(type)
            }
            guard let result else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path, debugDescription: "the number does not fit in \(Integer.self)"))
            }
            return result
        default: throw mismatch(type)
        }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard layout == .array else { return try decodeScalar(T.self) }
        guard !isAtEnd else { throw endError(type) }
        // Decoded first, so the element's end is known from how it was read rather than walked.
        let element = offset
        let value = try state.decodeValue(T.self, at: element, key: BinaryCodingKey(index: currentIndex))
        let depth = depth
        offset = try state.reading(path) { () throws(BinaryFormatError) in
            try state.endOfValue(at: element, depth: depth + 1)
        }
        currentIndex += 1
        return value
    }

    /// A generic element of a packed or string array: one of the scalar types it can hold.
    private mutating func decodeScalar<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return unsafeBitCast(try decode(String.self), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try decode(Int.self), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try decode(Double.self), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try decode(Bool.self), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(try decode(Float.self), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try decode(Int64.self), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try decode(Int32.self), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try decode(Int16.self), to: T.self) }
        if T.self == Int8.self { return unsafeBitCast(try decode(Int8.self), to: T.self) }
        if T.self == UInt.self { return unsafeBitCast(try decode(UInt.self), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try decode(UInt64.self), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try decode(UInt32.self), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try decode(UInt16.self), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try decode(UInt8.self), to: T.self) }
        throw mismatch(T.self)
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(
            type,
            DecodingError.Context(
                codingPath: path, debugDescription: "the array holds packed scalars or strings, not \(type)"))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        guard layout == .array else { throw mismatch([String: Int].self) }
        let path = path
        return try state.keyedContainer(at: try nextTagged(type), depth: depth + 1, path: path)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard layout == .array else { throw mismatch([Int].self) }
        let path = path
        return try state.unkeyedContainer(at: try nextTagged([Int].self), depth: depth + 1, path: path)
    }

    mutating func superDecoder() throws -> any Decoder {
        guard layout == .array else { throw mismatch(Never.self) }
        let path = path
        return BinaryNestedDecoder(state: state, offset: try nextTagged(Never.self), depth: depth + 1, path: path)
    }
}

/// The single value container: the value where the current one starts.
struct BinarySingleValueDecodingContainer: SingleValueDecodingContainer {
    let state: BinaryDecodingState
    let offset: Int
    let codingPath: [any CodingKey]

    init(state: BinaryDecodingState, offset: Int, path: [any CodingKey]) {
        self.state = state
        self.offset = offset
        codingPath = path
    }

    func decodeNil() -> Bool { (try? state.reader.tag(at: offset)) == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try state.decodeBool(at: offset, codingPath) }
    func decode(_ type: String.Type) throws -> String { try state.decodeString(at: offset, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try state.decodeDouble(at: offset, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try state.decodeFloat(at: offset, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try state.decodeInteger(type, at: offset, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try state.decodeInteger(type, at: offset, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // The same value again, through its type (a type decoding itself this way ends at the depth limit).
        try state.decodeValue(T.self, at: offset)
    }
}

/// The decoder a `superDecoder()` call returns: the value stored for it, read on demand.
final class BinaryNestedDecoder: Decoder {
    let state: BinaryDecodingState
    let offset: Int
    let depth: Int
    let codingPath: [any CodingKey]

    init(state: BinaryDecodingState, offset: Int, depth: Int, path: [any CodingKey]) {
        self.state = state
        self.offset = offset
        self.depth = depth
        codingPath = path
    }

    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try state.keyedContainer(at: offset, depth: depth, path: codingPath)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try state.unkeyedContainer(at: offset, depth: depth, path: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        BinarySingleValueDecodingContainer(state: state, offset: offset, path: codingPath)
    }
}
