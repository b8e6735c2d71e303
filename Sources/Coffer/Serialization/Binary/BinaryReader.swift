/// Bounds-checked reading of a binary value's bytes: every read checks the end first and fails
/// with a ``BinaryFormatError``, so hostile input can never read out of bounds.
struct BinaryReader {
    let buffer: UnsafeRawBufferPointer
    let count: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        buffer = bytes
        count = bytes.count
    }

    @inline(__always)
    func byte(at offset: Int) throws(BinaryFormatError) -> UInt8 {
        guard offset < count else { throw BinaryFormatError(.truncated, at: offset) }
        return buffer.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    func tag(at offset: Int) throws(BinaryFormatError) -> BinaryFormat.Tag {
        guard let tag = BinaryFormat.Tag(rawValue: try byte(at: offset)) else {
            throw BinaryFormatError(.invalidTag, at: offset)
        }
        return tag
    }

    /// Reads a LEB128 integer at `offset` and moves past it.
    @inline(__always)
    func varint(_ offset: inout Int) throws(BinaryFormatError) -> UInt64 {
        let first = try byte(at: offset)
        if first < 0x80 {
            offset &+= 1
            return UInt64(first)
        }
        return try longVarint(&offset)
    }

    @inline(never)
    private func longVarint(_ offset: inout Int) throws(BinaryFormatError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte(at: offset)
            offset += 1
            // The tenth byte may carry only the 64th bit.
            guard shift < 63 || byte <= 1 else { throw BinaryFormatError(.invalidVarint, at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A length or count that must fit in the bytes left after `offset`, each item taking at
    /// least `minimumSize` bytes: hostile lengths fail here, before anything is allocated.
    @inline(__always)
    func length(_ offset: inout Int, minimumSize: Int = 1) throws(BinaryFormatError) -> Int {
        let start = offset
        let value = try varint(&offset)
        let left = UInt64(count - offset)
        guard minimumSize <= 1 ? value <= left : value <= left / UInt64(minimumSize) else {
            throw BinaryFormatError(.truncated, at: start)
        }
        return Int(value)
    }

    @inline(__always)
    func fixed64(_ offset: inout Int) throws(BinaryFormatError) -> UInt64 {
        guard count - offset >= 8 else { throw BinaryFormatError(.truncated, at: offset) }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset &+= 8
        return UInt64(littleEndian: value)
    }

    @inline(__always)
    func fixed32(_ offset: inout Int) throws(BinaryFormatError) -> UInt32 {
        guard count - offset >= 4 else { throw BinaryFormatError(.truncated, at: offset) }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset &+= 4
        return UInt32(littleEndian: value)
    }

    /// `length` bytes at `offset`, already checked to be in bounds by ``length(_:minimumSize:)``.
    @inline(__always)
    func bytes(at offset: Int, count length: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(
            start: buffer.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: length)
    }

    /// Validated UTF-8 text of `length` bytes at `offset`.
    @inline(__always)
    func string(at offset: Int, count length: Int) throws(BinaryFormatError) -> String {
        let bytes = bytes(at: offset, count: length)
        // ASCII (most stored text) is valid as it is; `String(decoding:)` is the fast constructor.
        if Self.isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BinaryFormatError(.invalidUTF8, at: offset)
        }
        return text
    }

    /// Checks that `length` bytes at `offset` are UTF-8 without making a string of them.
    @inline(__always)
    func validateUTF8(at offset: Int, count length: Int) throws(BinaryFormatError) {
        let bytes = bytes(at: offset, count: length)
        guard Self.isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil else {
            throw BinaryFormatError(.invalidUTF8, at: offset)
        }
    }

    /// Whether every byte is below 0x80, eight at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// The offset just past the value whose tag is at `offset`, checking its structure (not its
    /// text or payloads) on the way; `depth` counts enclosing containers.
    func skip(_ offset: Int, depth: Int) throws(BinaryFormatError) -> Int {
        var offset = offset
        let raw = try byte(at: offset)
        offset += 1
        // Text and bytes, the most common values, without going through the tag enum.
        if raw == BinaryFormat.Tag.string.rawValue || raw == BinaryFormat.Tag.data.rawValue {
            let length = try self.length(&offset)
            return offset + length
        }
        guard let tag = BinaryFormat.Tag(rawValue: raw) else { throw BinaryFormatError(.invalidTag, at: offset - 1) }
        switch tag {
        case .end: throw BinaryFormatError(.invalidTag, at: offset - 1)
        case .null, .false, .true: return offset
        case .int, .uint:
            _ = try varint(&offset)
            return offset
        case .float64, .date: return try advance(offset, by: 8)
        case .float32: return try advance(offset, by: 4)
        case .uuid: return try advance(offset, by: 16)
        case .string, .data, .url, .decimal:
            let length = try self.length(&offset)
            return offset + length
        case .strings:
            let elements = try length(&offset)
            for _ in 0..<elements {
                let length = try self.length(&offset)
                offset += length
            }
            return offset
        case .packed: return try skipPacked(offset)
        case .array, .keyed:
            guard depth < BinaryFormat.maximumDepth else { throw BinaryFormatError(.tooDeep, at: offset - 1) }
            while true {
                if try byte(at: offset) == BinaryFormat.Tag.end.rawValue { return offset + 1 }
                if tag == .keyed { _ = try varint(&offset) }
                offset = try skip(offset, depth: depth + 1)
            }
        }
    }

    private func advance(_ offset: Int, by size: Int) throws(BinaryFormatError) -> Int {
        guard count - offset >= size else { throw BinaryFormatError(.truncated, at: offset) }
        return offset + size
    }

    /// Past a packed array whose kind byte is at `offset`.
    func skipPacked(_ offset: Int) throws(BinaryFormatError) -> Int {
        var offset = offset
        guard let kind = BinaryFormat.PackedKind(rawValue: try byte(at: offset)) else {
            throw BinaryFormatError(.invalidTag, at: offset)
        }
        offset += 1
        switch kind {
        case .bool:
            let elements = try length(&offset)
            return offset + elements
        case .float32:
            let elements = try length(&offset, minimumSize: 4)
            return offset + 4 * elements
        case .float64:
            let elements = try length(&offset, minimumSize: 8)
            return offset + 8 * elements
        case .int, .uint:
            let elements = try length(&offset)
            for _ in 0..<elements { _ = try varint(&offset) }
            return offset
        }
    }
}
