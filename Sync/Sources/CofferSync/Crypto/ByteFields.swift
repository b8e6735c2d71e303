import Foundation

/// Appends the fixed-width, big-endian and length-prefixed fields of the package's binary
/// records (sealed rows' plaintext, associated data, enrollment payloads).
struct ByteWriter {
    private(set) var data = Data()

    mutating func append(_ byte: UInt8) { data.append(byte) }

    mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    mutating func append(raw bytes: some DataProtocol) { data.append(contentsOf: bytes) }

    mutating func append(_ uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { data.append(contentsOf: $0) }
    }

    /// A u32 length, then the bytes.
    mutating func append(prefixed bytes: some DataProtocol) {
        append(UInt32(truncatingIfNeeded: bytes.count))
        data.append(contentsOf: bytes)
    }

    mutating func append(prefixed string: String) { append(prefixed: Data(string.utf8)) }
}

/// Reads what ``ByteWriter`` wrote; every read fails (nil) rather than trapping on short input.
struct ByteReader {
    private let data: Data
    private var offset: Int

    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var isAtEnd: Bool { offset == data.endIndex }

    mutating func bytes(_ count: Int) -> Data? {
        guard count >= 0, data.endIndex - offset >= count else { return nil }
        defer { offset += count }
        return data[offset..<offset + count]
    }

    mutating func byte() -> UInt8? { bytes(1)?.first }

    mutating func uint32() -> UInt32? {
        bytes(4).map { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    mutating func uint64() -> UInt64? {
        bytes(8).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    }

    mutating func uuid() -> UUID? {
        bytes(16).map { UUID(bytes: $0) }
    }

    mutating func prefixed() -> Data? {
        guard let count = uint32() else { return nil }
        return bytes(Int(count))
    }

    mutating func prefixedString() -> String? {
        prefixed().flatMap { String(data: $0, encoding: .utf8) }
    }
}

extension UUID {
    /// The UUID whose 16 bytes are `bytes` (exactly 16).
    init(bytes: some Collection<UInt8>) {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { target in
            for (index, byte) in zip(target.indices, bytes) { target[index] = byte }
        }
        self.init(uuid: raw)
    }

    /// The 16 bytes of the UUID, in order.
    var bytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}

extension Data {
    /// Lowercase hex, for row ids in messages and channel names.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
