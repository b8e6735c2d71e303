/// The growable byte buffer the binary encoder writes into.
///
/// Raw memory, grown by doubling, with no per-byte checks beyond capacity; owned by one encoding
/// and freed explicitly.
struct BinaryBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    func deallocate() { base.deallocate() }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count + extra) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ tag: BinaryFormat.Tag) { append(tag.rawValue) }

    /// Appends `value` as LEB128 (7 bits a byte, low group first).
    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        reserve(10)
        var value = value
        while value >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count &+= 1
            value >>= 7
        }
        base[count] = UInt8(truncatingIfNeeded: value)
        count &+= 1
    }

    @inline(__always)
    mutating func appendVarint(_ value: Int) { appendVarint(UInt64(value)) }

    /// Appends `value` zigzag-encoded, so small negative numbers stay short.
    @inline(__always)
    mutating func appendZigzag(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    @inline(__always)
    mutating func append(littleEndian value: UInt64) {
        reserve(8)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: UInt64.self)
        count &+= 8
    }

    @inline(__always)
    mutating func append(littleEndian value: UInt32) {
        reserve(4)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: UInt32.self)
        count &+= 4
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count &+= bytes.count
    }

    /// Appends the length and the UTF-8 bytes of `text`.
    @inline(__always)
    mutating func appendLengthPrefixed(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            appendVarint(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    /// A binary64 as binary32 when that is exact (half the bytes), else as binary64.
    @inline(__always)
    mutating func appendFloatingPoint(_ value: Double) {
        let narrow = Float(value)
        // NaN compares unequal, so it keeps all 64 bits (and its payload).
        if Double(narrow) == value {
            append(.float32)
            append(littleEndian: narrow.bitPattern)
        } else {
            append(.float64)
            append(littleEndian: value.bitPattern)
        }
    }
}
