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
    /// other type through its `encode(to:)`.
    ///
    /// The checks compare metadata pointers; a match reinterprets the value as the type it is.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if T.self == String.self { return write(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return write(signed: Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Double.self { return write(unsafeBitCast(value, to: Double.self)) }
        if T.self == Bool.self { return write(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Date.self { return write(date: unsafeBitCast(value, to: Date.self)) }
        if T.self == Data.self { return write(data: unsafeBitCast(value, to: Data.self)) }
        if T.self == [String].self { return write(strings: unsafeBitCast(value, to: [String].self)) }
        if T.self == [Int].self { return writePacked(unsafeBitCast(value, to: [Int].self)) }
        if T.self == [Double].self { return writePacked(unsafeBitCast(value, to: [Double].self)) }
        if T.self == URL.self { return write(url: unsafeBitCast(value, to: URL.self)) }
        if T.self == UUID.self { return write(uuid: unsafeBitCast(value, to: UUID.self)) }
        if T.self == Decimal.self { return write(decimal: unsafeBitCast(value, to: Decimal.self)) }
        if encodeOtherPacked(value) { return }
        try encodeNested(value)
    }

    /// The less common packed arrays; false when `T` is none of them.
    private func encodeOtherPacked<T>(_ value: T) -> Bool {
        if T.self == [Float].self { writePacked(unsafeBitCast(value, to: [Float].self)); return true }
        if T.self == [Bool].self { writePacked(unsafeBitCast(value, to: [Bool].self)); return true }
        if T.self == [Int64].self { writePacked(unsafeBitCast(value, to: [Int64].self)); return true }
        if T.self == [Int32].self { writePacked(unsafeBitCast(value, to: [Int32].self)); return true }
        if T.self == [Int16].self { writePacked(unsafeBitCast(value, to: [Int16].self)); return true }
        if T.self == [Int8].self { writePacked(unsafeBitCast(value, to: [Int8].self)); return true }
        if T.self == [UInt].self { writePacked(unsafeBitCast(value, to: [UInt].self)); return true }
        if T.self == [UInt64].self { writePacked(unsafeBitCast(value, to: [UInt64].self)); return true }
        if T.self == [UInt32].self { writePacked(unsafeBitCast(value, to: [UInt32].self)); return true }
        if T.self == [UInt16].self { writePacked(unsafeBitCast(value, to: [UInt16].self)); return true }
        if T.self == [UInt8].self { writePacked(unsafeBitCast(value, to: [UInt8].self)); return true }
        return false
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

    func write(decimal: Decimal) {
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
