import Foundation

/// The tagged values: scalars, the types with tags of their own, and packed arrays.
extension BinaryEncodingState {
    @inline(__always)
    func write(_ value: Bool) { body.append(value ? .true : .false) }

    @inline(__always)
    func write(signed value: Int64) {
        body.append(.int)
        body.appendZigzag(value)
    }

    @inline(__always)
    func write(unsigned value: UInt64) {
        body.append(.uint)
        body.appendVarint(value)
    }

    @inline(__always)
    func write(_ value: Double) { body.appendFloatingPoint(value) }

    @inline(__always)
    func write(_ value: Float) {
        body.append(.float32)
        body.append(littleEndian: value.bitPattern)
    }

    @inline(__always)
    func write(_ value: String) {
        body.append(.string)
        body.appendLengthPrefixed(value)
    }

    /// Encodes any value: the types with tags of their own and arrays that pack directly, every
    /// other type through its `encode(to:)`, with `key` on the coding path while it runs.
    ///
    /// The checks compare metadata pointers; a match reinterprets the value as the type it is.
    func encodeValue<T: Encodable>(_ value: T, key: (any CodingKey)? = nil) throws {
        if T.self == String.self { return write(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return write(signed: Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Double.self { return write(unsafeBitCast(value, to: Double.self)) }
        if T.self == Bool.self { return write(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Date.self { return write(date: unsafeBitCast(value, to: Date.self)) }
        if T.self == Data.self { return write(data: unsafeBitCast(value, to: Data.self)) }
        if T.self == URL.self { return write(url: unsafeBitCast(value, to: URL.self)) }
        if T.self == UUID.self { return write(uuid: unsafeBitCast(value, to: UUID.self)) }
        if T.self == Decimal.self { return try write(decimal: unsafeBitCast(value, to: Decimal.self)) }
        if encodePacked(value) { return }
        guard let key else { return try encodeNested(value) }
        codingPath.append(key)
        defer { codingPath.removeLast() }
        try encodeNested(value)
    }

    /// Writes `value` packed when it is an array of strings or of scalars; false when it is not.
    private func encodePacked<T>(_ value: T) -> Bool {
        let id = ObjectIdentifier(T.self)
        let known = BinaryKnownTypes.shared
        switch id {
        case known.strings: write(strings: unsafeBitCast(value, to: [String].self))
        case known.ints: writePacked(unsafeBitCast(value, to: [Int].self))
        case known.doubles: writePacked(unsafeBitCast(value, to: [Double].self))
        case known.floats: writePacked(unsafeBitCast(value, to: [Float].self))
        case known.bools: writePacked(unsafeBitCast(value, to: [Bool].self))
        case known.int64s: writePacked(unsafeBitCast(value, to: [Int64].self))
        case known.int32s: writePacked(unsafeBitCast(value, to: [Int32].self))
        case known.int16s: writePacked(unsafeBitCast(value, to: [Int16].self))
        case known.int8s: writePacked(unsafeBitCast(value, to: [Int8].self))
        case known.uints: writePacked(unsafeBitCast(value, to: [UInt].self))
        case known.uint64s: writePacked(unsafeBitCast(value, to: [UInt64].self))
        case known.uint32s: writePacked(unsafeBitCast(value, to: [UInt32].self))
        case known.uint16s: writePacked(unsafeBitCast(value, to: [UInt16].self))
        case known.uint8s: writePacked(unsafeBitCast(value, to: [UInt8].self))
        default: return false
        }
        return true
    }

    func write(date: Date) {
        body.append(.date)
        body.append(littleEndian: date.timeIntervalSinceReferenceDate.bitPattern)
    }

    func write(data: Data) {
        body.append(.data)
        body.appendVarint(data.count)
        data.withUnsafeBytes { body.append($0) }
    }

    func write(url: URL) {
        body.append(.url)
        body.appendLengthPrefixed(url.absoluteString)
    }

    func write(uuid: UUID) {
        body.append(.uuid)
        withUnsafeBytes(of: uuid.uuid) { body.append($0) }
    }

    /// Writes a `Decimal` as its text.
    /// - Throws: `EncodingError.invalidValue` for NaN, whose text (`NaN`) is no number to decode.
    func write(decimal: Decimal) throws {
        guard !decimal.isNaN else {
            throw EncodingError.invalidValue(
                decimal,
                EncodingError.Context(codingPath: codingPath, debugDescription: "a NaN Decimal has no binary form"))
        }
        body.append(.decimal)
        body.appendLengthPrefixed(decimal.description)
    }

    func write(strings: [String]) {
        body.append(.strings)
        body.appendVarint(strings.count)
        for string in strings { body.appendLengthPrefixed(string) }
    }

    func writePacked<Integer: FixedWidthInteger & SignedInteger>(_ values: [Integer]) {
        body.append(.packed)
        body.append(BinaryFormat.PackedKind.int.rawValue)
        body.appendVarint(values.count)
        for value in values { body.appendZigzag(Int64(value)) }
    }

    func writePacked<Integer: FixedWidthInteger & UnsignedInteger>(_ values: [Integer]) {
        body.append(.packed)
        body.append(BinaryFormat.PackedKind.uint.rawValue)
        body.appendVarint(values.count)
        for value in values { body.appendVarint(UInt64(value)) }
    }

    func writePacked(_ values: [Double]) {
        body.append(.packed)
        body.append(BinaryFormat.PackedKind.float64.rawValue)
        body.appendVarint(values.count)
        for value in values { body.append(littleEndian: value.bitPattern) }
    }

    func writePacked(_ values: [Float]) {
        body.append(.packed)
        body.append(BinaryFormat.PackedKind.float32.rawValue)
        body.appendVarint(values.count)
        for value in values { body.append(littleEndian: value.bitPattern) }
    }

    func writePacked(_ values: [Bool]) {
        body.append(.packed)
        body.append(BinaryFormat.PackedKind.bool.rawValue)
        body.appendVarint(values.count)
        for value in values { body.append(value ? 1 : 0) }
    }
}
