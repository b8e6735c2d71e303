public import Foundation

/// Decodes `Decodable` values from Coffer's compact binary format (``BinaryEncoder``).
///
/// Built for stored rows that may have been damaged or planted: every read is bounds-checked,
/// lengths and counts are checked against the bytes left before anything is allocated, nesting
/// is limited to 256 levels, and what the decoder allocates itself (text, data, packed arrays,
/// the key table) is limited to ``allocationLimit(forInputOf:)`` bytes. Malformed bytes fail
/// with `DecodingError.dataCorrupted` whose underlying error is a ``BinaryFormatError``.
///
/// Decoding follows what Codable users expect of JSON: a missing key is `nil` for optionals
/// (`keyNotFound` otherwise), unknown keys are ignored, integers decode into any integer type
/// that holds them, and numbers into `Double` and `Float`.
public struct BinaryDecoder: Sendable {
    /// Values handed to the types being decoded (`Decoder.userInfo`).
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder.
    public init() {}

    /// Decodes a `T` from `data`.
    ///
    /// - Throws: `DecodingError`: `.dataCorrupted` (with a ``BinaryFormatError``) for bytes that
    ///   are not a well-formed value, `.typeMismatch`, `.keyNotFound` and `.valueNotFound` when
    ///   they do not hold a `T`; any error `T`'s own `init(from:)` throws.
    /// - Complexity: O(size of the data) for values decoded in the order they were encoded.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { bytes in
            let state = try BinaryDecodingState(BinaryReader(bytes), userInfo: userInfo)
            return try state.decodeRoot(T.self)
        }
    }

    /// Whether `data` is in this format (it starts with `0xC1`); JSON and property lists never are.
    public static func isBinary(_ data: Data) -> Bool {
        data.first == BinaryFormat.magic
    }

    /// The most a decoder allocates for its own use (text, data, packed arrays, keys) while
    /// decoding `count` bytes: 32 bytes per input byte plus 4 KiB.
    ///
    /// Values the decoded types build themselves are not counted; each takes at least one input
    /// byte, so they are bounded by the input's length times the largest type's size.
    public static func allocationLimit(forInputOf count: Int) -> Int {
        count.multipliedReportingOverflow(by: 32).partialValue + 4096
    }
}

/// One decoding in progress: the bytes, the key table, where the value now being decoded is,
/// and the budget left; the `Decoder` every nested value is handed.
final class BinaryDecodingState: Decoder {
    let reader: BinaryReader
    /// The key table: (start, length) of each key's UTF-8 bytes, flattened.
    private var keyTable: [Int] = []
    /// The tag offset of the value now being decoded.
    var position: Int
    var depth = 0
    var codingPath: [any CodingKey] = []
    /// What the decoder may still allocate.
    private var budget: Int
    /// Per nesting depth: the keyed container last searched (its first entry) and the entry after
    /// the last one found, where the next lookup starts (fields are read in the order written).
    private var hints: [Int] = []
    private let userInfoStorage: [CodingUserInfoKey: any Sendable]

    init(_ reader: BinaryReader, userInfo: [CodingUserInfoKey: any Sendable]) throws {
        self.reader = reader
        userInfoStorage = userInfo
        budget = BinaryDecoder.allocationLimit(forInputOf: reader.count)
        position = 0
        do throws(BinaryFormatError) {
            guard try reader.byte(at: 0) == BinaryFormat.magic else { throw BinaryFormatError(.badMagic, at: 0) }
            guard try reader.byte(at: 1) == BinaryFormat.version else {
                throw BinaryFormatError(.unsupportedVersion, at: 1)
            }
            var offset = 2
            let keys = try reader.length(&offset)
            try charge(keys * 2 * MemoryLayout<Int>.stride, at: offset)
            keyTable.reserveCapacity(keys * 2)
            for _ in 0..<keys {
                let length = try reader.length(&offset)
                _ = try reader.string(at: offset, count: length)
                keyTable.append(offset)
                keyTable.append(length)
                offset += length
            }
            position = offset
        } catch {
            throw Self.corrupt(error, [])
        }
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    /// Decodes the root value and checks that nothing follows it.
    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        let root = position
        let value = try decodeValue(T.self, at: root)
        do throws(BinaryFormatError) {
            let end = try reader.skip(root, depth: 0)
            guard end == reader.count else { throw BinaryFormatError(.trailingBytes, at: end) }
        } catch {
            throw Self.corrupt(error, [])
        }
        return value
    }

    /// Takes `size` bytes from the allocation budget.
    @inline(__always)
    func charge(_ size: Int, at offset: Int) throws(BinaryFormatError) {
        budget -= size
        guard budget >= 0 else { throw BinaryFormatError(.allocationLimitExceeded, at: offset) }
    }

    static func corrupt(_ error: BinaryFormatError, _ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(
            DecodingError.Context(
                codingPath: path, debugDescription: "malformed binary value: \(error)", underlyingError: error))
    }

    // MARK: Keys

    /// The offset of the value stored under `name` in the keyed container whose first entry is
    /// at `start`, or nil when the container has no such key.
    func find(_ name: UnsafeBufferPointer<UInt8>, in start: Int, depth: Int) throws(BinaryFormatError) -> Int? {
        let slot = 2 * depth
        if slot + 1 >= hints.count { hints.append(contentsOf: repeatElement(-1, count: slot + 2 - hints.count)) }
        let hinted = hints[slot] == start
        let first = hinted ? hints[slot + 1] : start
        var offset = first
        var wrapped = !hinted
        while true {
            var valueAt = offset
            let reference = try reader.varint(&valueAt)
            if reference == 0 {
                if wrapped || first == start { return nil }
                wrapped = true
                offset = start
                if offset == first { return nil }
                continue
            }
            guard reference <= UInt64(keyTable.count / 2) else {
                throw BinaryFormatError(.invalidKeyReference, at: offset)
            }
            let end = try reader.skip(valueAt, depth: depth + 1)
            if keyMatches(Int(reference) - 1, name) {
                hints[slot] = start
                hints[slot + 1] = end
                return valueAt
            }
            offset = end
            if wrapped && offset == first { return nil }
        }
    }

    @inline(__always)
    private func keyMatches(_ index: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = keyTable[2 * index + 1]
        guard length == name.count else { return false }
        guard let wanted = name.baseAddress,
            let stored = reader.bytes(at: keyTable[2 * index], count: length).baseAddress
        else { return true }
        return memcmp(stored, wanted, length) == 0
    }

    /// The key table entry `reference` names (1-based), as text.
    func keyName(_ reference: UInt64, at offset: Int) throws(BinaryFormatError) -> String {
        guard reference >= 1, reference <= UInt64(keyTable.count / 2) else {
            throw BinaryFormatError(.invalidKeyReference, at: offset)
        }
        let index = Int(reference) - 1
        return try reader.string(at: keyTable[2 * index], count: keyTable[2 * index + 1])
    }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(at: position, depth: depth, path: codingPath)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: position, depth: depth, path: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        BinarySingleValueDecodingContainer(state: self, offset: position, path: codingPath)
    }

    func keyedContainer<Key: CodingKey>(
        at offset: Int, depth: Int, path: [any CodingKey]
    ) throws -> KeyedDecodingContainer<Key> {
        let tag = try self.tag(at: offset, path)
        guard tag == .keyed else { throw Self.unexpected(tag, [String: Int].self, path) }
        return KeyedDecodingContainer(
            BinaryKeyedDecodingContainer<Key>(state: self, start: offset + 1, depth: depth, path: path))
    }

    func unkeyedContainer(at offset: Int, depth: Int, path: [any CodingKey]) throws -> any UnkeyedDecodingContainer {
        let tag = try self.tag(at: offset, path)
        guard tag == .array || tag == .packed || tag == .strings else {
            throw Self.unexpected(tag, [Int].self, path)
        }
        do {
            return try BinaryUnkeyedDecodingContainer(state: self, tag: tag, at: offset, depth: depth, path: path)
        } catch {
            throw Self.corrupt(error, path)
        }
    }

    @inline(__always)
    func tag(at offset: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> BinaryFormat.Tag {
        do throws(BinaryFormatError) {
            return try reader.tag(at: offset)
        } catch {
            throw Self.corrupt(error, path())
        }
    }

    /// The error for a value of another type: `valueNotFound` for a null, else `typeMismatch`.
    static func unexpected(_ tag: BinaryFormat.Tag, _ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        if tag == .null {
            return .valueNotFound(type, DecodingError.Context(codingPath: path, debugDescription: "found null"))
        }
        return .typeMismatch(
            type, DecodingError.Context(codingPath: path, debugDescription: "found a value of tag \(tag)"))
    }
}
