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
    /// The key table of the last value decoded, which the next one most likely shares.
    private let cache = BinaryKeyTableCache()

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
            let state = try BinaryDecodingState(BinaryReader(bytes), userInfo: userInfo, cache: cache)
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
    /// The mutable state, behind a pointer: every access to a class's stored `var` pays a dynamic
    /// exclusivity check.
    private let storage: UnsafeMutablePointer<Storage>

    private struct Storage {
        /// The key table: (start, length) of each key's UTF-8 bytes, flattened.
        var keyTable: [Int] = []
        /// The tag offset of the value now being decoded.
        var position = 0
        var depth = 0
        var codingPath: [any CodingKey] = []
        /// What the decoder may still allocate.
        var budget = 0
        /// Per nesting depth up to 7, where the next lookup starts.
        ///
        /// The keyed container last searched (its first entry) and the entry after the last one
        /// found (fields are read in the order written); `~offset` while that entry's value has
        /// not been walked yet. Deeper containers search from their first entry.
        var hints = SIMD16<Int>(repeating: Int.min)
        /// Where the last scalar read started and ended, so a lookup need not walk over it again.
        var lastStart = -1
        var lastEnd = -1
    }

    private var keyTable: [Int] {
        _read { yield storage.pointee.keyTable }
        _modify { yield &storage.pointee.keyTable }
    }
    var position: Int {
        get { storage.pointee.position }
        set { storage.pointee.position = newValue }
    }
    var depth: Int {
        get { storage.pointee.depth }
        set { storage.pointee.depth = newValue }
    }
    var codingPath: [any CodingKey] {
        _read { yield storage.pointee.codingPath }
        _modify { yield &storage.pointee.codingPath }
    }
    private var budget: Int {
        get { storage.pointee.budget }
        set { storage.pointee.budget = newValue }
    }
    private var hints: SIMD16<Int> {
        _read { yield storage.pointee.hints }
        _modify { yield &storage.pointee.hints }
    }
    private let userInfoStorage: [CodingUserInfoKey: any Sendable]

    init(_ reader: BinaryReader, userInfo: [CodingUserInfoKey: any Sendable], cache: BinaryKeyTableCache) throws {
        self.reader = reader
        userInfoStorage = userInfo
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
        budget = BinaryDecoder.allocationLimit(forInputOf: reader.count)
        do throws(BinaryFormatError) {
            guard try reader.byte(at: 0) == BinaryFormat.magic else { throw BinaryFormatError(.badMagic, at: 0) }
            guard try reader.byte(at: 1) == BinaryFormat.version else {
                throw BinaryFormatError(.unsupportedVersion, at: 1)
            }
            var end = 2
            let keys = try reader.length(&end)
            for _ in 0..<keys {
                let length = try reader.length(&end)
                end += length
            }
            let table = reader.bytes(at: 2, count: end - 2)
            if let cached = cache.load(), Self.equal(cached.bytes, table) {
                keyTable = cached.ranges
            } else {
                try readKeyTable(count: keys)
                cache.store(BinaryKeyTableCache.Entry(keys: [], bytes: Array(table), ranges: keyTable))
            }
            position = end
        } catch {
            throw Self.corrupt(error, [])
        }
    }

    private static func equal(_ cached: [UInt8], _ table: UnsafeBufferPointer<UInt8>) -> Bool {
        guard cached.count == table.count else { return false }
        return cached.withUnsafeBufferPointer { cached in
            guard let left = cached.baseAddress, let right = table.baseAddress else { return true }
            return memcmp(left, right, table.count) == 0
        }
    }

    /// Validates the `count` keys after the magic, version and count, and records where each is.
    private func readKeyTable(count: Int) throws(BinaryFormatError) {
        var offset = 2
        _ = try reader.varint(&offset)
        try charge(count * 2 * MemoryLayout<Int>.stride, at: offset)
        keyTable.reserveCapacity(count * 2)
        for _ in 0..<count {
            let length = try reader.length(&offset)
            try reader.validateUTF8(at: offset, count: length)
            keyTable.append(offset)
            keyTable.append(length)
            offset += length
        }
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    /// Decodes the root value and checks that nothing follows it.
    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        let root = position
        let value = try decodeValue(T.self, at: root)
        do throws(BinaryFormatError) {
            // The root value is decoded as a nested one: its container is at depth 1.
            let end = try endOfValue(at: root, depth: 1)
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
        let hinted = depth < 8 && hints[slot] == start
        let first = hinted ? try resolvedHint(slot, depth: depth) : start
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
            if keyMatches(Int(reference) - 1, name) {
                if depth < 8 {
                    // The next lookup starts after this value, found once it is read (``noteScalar``).
                    hints[slot] = start
                    hints[slot + 1] = ~valueAt
                }
                return valueAt
            }
            offset = try reader.skip(valueAt, depth: depth + 1)
            if wrapped && offset == first { return nil }
        }
    }

    /// The entry after the value last found at hint `slot`: where the scalar read of it ended, or
    /// past it by a walk.
    @inline(__always)
    private func resolvedHint(_ slot: Int, depth: Int) throws(BinaryFormatError) -> Int {
        let next = hints[slot + 1]
        guard next < 0 else { return next }
        let value = ~next
        let end =
            storage.pointee.lastStart == value ? storage.pointee.lastEnd : try reader.skip(value, depth: depth + 1)
        hints[slot + 1] = end
        return end
    }

    /// Where the value at `start`, just decoded with its containers at `depth`, ends: after the
    /// end tag when its keyed container was read to its last entry, where a scalar read of it
    /// ended, or else past it by a walk.
    func endOfValue(at start: Int, depth: Int) throws(BinaryFormatError) -> Int {
        if depth < 8 && hints[2 * depth] == start + 1 {
            let last = try resolvedHint(2 * depth, depth: depth)
            if try reader.byte(at: last) == BinaryFormat.Tag.end.rawValue { return last + 1 }
        }
        if storage.pointee.lastStart == start { return storage.pointee.lastEnd }
        return try reader.skip(start, depth: depth - 1)
    }

    /// Records that the scalar at `start` ends at `end`.
    @inline(__always)
    func noteScalar(_ start: Int, _ end: Int) {
        storage.pointee.lastStart = start
        storage.pointee.lastEnd = end
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
