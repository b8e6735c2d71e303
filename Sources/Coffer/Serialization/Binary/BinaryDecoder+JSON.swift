public import Foundation

extension BinaryDecoder {
    /// The JSON text `JSONEncoder` (default strategies, `.sortedKeys`) would have written for the
    /// value a binary encoding holds, read without knowing its type: for tools that show stored
    /// rows (`coffer get`, `export-json`).
    ///
    /// Dates become seconds since 2001-01-01 and data base64 text, as `JSONEncoder`'s defaults
    /// write them, so the JSON decodes back into the same value with `JSONDecoder`.
    ///
    /// - Throws: ``BinaryFormatError``: the codes of malformed input as when decoding, and
    ///   ``BinaryFormatError/Code/notRepresentableInJSON`` for an infinite or NaN number.
    /// - Complexity: O(size of the data), plus sorting each container's keys.
    public static func jsonRepresentation(of data: Data) throws(BinaryFormatError) -> Data {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(BinaryFormatError) -> [UInt8] in
                var renderer = try BinaryJSONRenderer(BinaryReader(bytes))
                return try renderer.render()
            }
        }
        return Data(try result.get())
    }
}

/// Writes a binary value as JSON text, checking its structure as the decoder does.
struct BinaryJSONRenderer {
    private let reader: BinaryReader
    private var keys: [String] = []
    private var root: Int
    private var output: [UInt8] = []

    init(_ reader: BinaryReader) throws(BinaryFormatError) {
        self.reader = reader
        guard try reader.byte(at: 0) == BinaryFormat.magic else { throw BinaryFormatError(.badMagic, at: 0) }
        guard try reader.byte(at: 1) == BinaryFormat.version else {
            throw BinaryFormatError(.unsupportedVersion, at: 1)
        }
        var offset = 2
        let count = try reader.length(&offset)
        for _ in 0..<count {
            let length = try reader.length(&offset)
            keys.append(try reader.string(at: offset, count: length))
            offset += length
        }
        root = offset
        output.reserveCapacity(reader.count * 2)
    }

    mutating func render() throws(BinaryFormatError) -> [UInt8] {
        let end = try value(at: root, depth: 0)
        guard end == reader.count else { throw BinaryFormatError(.trailingBytes, at: end) }
        return output
    }

    /// Writes the value at `offset`; returns the offset after it.
    private mutating func value(at start: Int, depth: Int) throws(BinaryFormatError) -> Int {
        var offset = start + 1
        switch try reader.tag(at: start) {
        case .end: throw BinaryFormatError(.invalidTag, at: start)
        case .null: append("null")
        case .false: append("false")
        case .true: append("true")
        case .int: append(String(BinaryDecodingState.unzigzag(try reader.varint(&offset))))
        case .uint: append(String(try reader.varint(&offset)))
        case .float64, .date: try number(Double(bitPattern: try reader.fixed64(&offset)), at: start)
        case .float32: try number(Double(Float(bitPattern: try reader.fixed32(&offset))), at: start)
        case .string, .url: appendString(try text(&offset))
        case .decimal:
            let text = try self.text(&offset)
            guard text.utf8.count <= BinaryFormat.maximumDecimalLength,
                let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN
            else { throw BinaryFormatError(.invalidPayload, at: start) }
            append(decimal.description)
        case .data:
            let length = try reader.length(&offset)
            appendString(Data(buffer: reader.bytes(at: offset, count: length)).base64EncodedString())
            offset += length
        case .uuid:
            guard reader.count - offset >= 16 else { throw BinaryFormatError(.truncated, at: offset) }
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) {
                $0.copyMemory(from: UnsafeRawBufferPointer(reader.bytes(at: offset, count: 16)))
            }
            appendString(UUID(uuid: uuid).uuidString)
            offset += 16
        case .strings:
            let count = try reader.length(&offset)
            output.append(UInt8(ascii: "["))
            for index in 0..<count {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                appendString(try text(&offset))
            }
            output.append(UInt8(ascii: "]"))
        case .packed: offset = try packed(at: offset)
        case .array, .keyed:
            guard depth < BinaryFormat.maximumDepth else { throw BinaryFormatError(.tooDeep, at: start) }
            return try container(at: start, depth: depth)
        }
        return offset
    }

    private mutating func container(at start: Int, depth: Int) throws(BinaryFormatError) -> Int {
        var offset = start + 1
        if try reader.tag(at: start) == .array {
            output.append(UInt8(ascii: "["))
            var first = true
            while try reader.byte(at: offset) != BinaryFormat.Tag.end.rawValue {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                offset = try value(at: offset, depth: depth + 1)
            }
            output.append(UInt8(ascii: "]"))
            return offset + 1
        }
        var entries: [(key: String, value: Int)] = []
        while try reader.byte(at: offset) != BinaryFormat.Tag.end.rawValue {
            let referenceAt = offset
            let reference = try reader.varint(&offset)
            guard reference >= 1, reference <= UInt64(keys.count) else {
                throw BinaryFormatError(.invalidKeyReference, at: referenceAt)
            }
            entries.append((keys[Int(reference) - 1], offset))
            offset = try reader.skip(offset, depth: depth + 1)
        }
        output.append(UInt8(ascii: "{"))
        for (index, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendString(entry.key)
            output.append(UInt8(ascii: ":"))
            _ = try value(at: entry.value, depth: depth + 1)
        }
        output.append(UInt8(ascii: "}"))
        return offset + 1
    }

    private mutating func packed(at start: Int) throws(BinaryFormatError) -> Int {
        var offset = start
        guard let kind = BinaryFormat.PackedKind(rawValue: try reader.byte(at: offset)) else {
            throw BinaryFormatError(.invalidTag, at: offset)
        }
        offset += 1
        let size = kind == .float64 ? 8 : kind == .float32 ? 4 : 1
        let count = try reader.length(&offset, minimumSize: size)
        output.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            let elementAt = offset
            switch kind {
            case .bool:
                let byte = try reader.byte(at: offset)
                guard byte <= 1 else { throw BinaryFormatError(.invalidPayload, at: offset) }
                append(byte == 1 ? "true" : "false")
                offset += 1
            case .int: append(String(BinaryDecodingState.unzigzag(try reader.varint(&offset))))
            case .uint: append(String(try reader.varint(&offset)))
            case .float64: try number(Double(bitPattern: try reader.fixed64(&offset)), at: elementAt)
            case .float32: try number(Double(Float(bitPattern: try reader.fixed32(&offset))), at: elementAt)
            }
        }
        output.append(UInt8(ascii: "]"))
        return offset
    }

    private func text(_ offset: inout Int) throws(BinaryFormatError) -> String {
        let length = try reader.length(&offset)
        defer { offset += length }
        return try reader.string(at: offset, count: length)
    }

    private mutating func number(_ value: Double, at offset: Int) throws(BinaryFormatError) {
        guard value.isFinite else { throw BinaryFormatError(.notRepresentableInJSON, at: offset) }
        // Whole numbers as `JSONEncoder` writes them (`60`, not `60.0`).
        if value.rounded() == value && abs(value) < 0x1p53 {
            append(String(Int64(value)))
        } else {
            append(value.description)
        }
    }

    private mutating func append(_ text: String) { output.append(contentsOf: text.utf8) }

    /// `text` as a JSON string literal.
    private mutating func appendString(_ text: String) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), byte]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
