public import Foundation

/// Encodes `Encodable` values into Coffer's compact binary format (`BINARY-FORMAT.md`).
///
/// The format describes itself: every value carries a one-byte type tag, keys are stored once per
/// encoded value in a key table, integers are variable-length, `Date`, `Data`, `URL`, `UUID` and
/// `Decimal` have tags of their own, and arrays of numbers, booleans or strings are packed. The
/// first byte, `0xC1`, never begins JSON or a property list, so the Codable codecs tell the
/// formats apart when they read (``Serializer/codable(_:format:encoder:decoder:)``).
///
/// ```swift
/// let bytes = try BinaryEncoder().encode(note)
/// let back = try BinaryDecoder().decode(Note.self, from: bytes)
/// ```
///
/// Containers are written in the order they are filled: writing to a container after one nested
/// in it was left for the parent is refused with `EncodingError.invalidValue` (synthesized
/// conformances never do this). `Int128` and `UInt128` are not supported.
public struct BinaryEncoder: Sendable {
    /// Values handed to the types being encoded (`Encoder.userInfo`).
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    public init() {}

    /// Encodes `value`.
    ///
    /// - Returns: The encoded bytes, starting with `C1 01`.
    /// - Throws: `EncodingError.invalidValue` when the value's `encode(to:)` throws it or misuses
    ///   the containers; any error the value's own `encode(to:)` throws.
    /// - Complexity: O(size of the encoding).
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let state = BinaryEncodingState(userInfo: userInfo)
        defer { state.release() }
        try state.encodeValue(value)
        return try state.finish()
    }
}

/// One encoding in progress: the `Encoder` every value of it is handed, with the output buffer,
/// the key table and the containers that are still open.
final class BinaryEncodingState: Encoder {
    var body = BinaryBuffer(capacity: 256)
    /// The key table, in order of first use.
    private var keys: [String] = []
    /// Where the next key is likely to be in `keys` (fields come in the same order each time).
    private var keyHint = 0
    /// `keys` by name, once the table is too long to scan.
    private var keyIndexes: [String: Int]?
    /// Ids of the containers still open, innermost last.
    private var open: [Int] = []
    private var nextID = 1
    /// Where the value now being encoded starts, and the container it asked for (0: none yet).
    private var slotStart = 0
    private var slotContainer = 0
    private var slotIsKeyed = false
    /// Where a super encoder's value must appear, -1 when none is pending.
    private var pendingValueAt = -1
    /// A misuse seen in a call that cannot throw, thrown when the encoding finishes.
    var failure: EncodingError?
    var codingPath: [any CodingKey] = []
    private let userInfoStorage: [CodingUserInfoKey: any Sendable]

    init(userInfo: [CodingUserInfoKey: any Sendable]) {
        userInfoStorage = userInfo
        keys.reserveCapacity(16)
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    func release() { body.deallocate() }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(BinaryKeyedEncodingContainer<Key>(state: self, id: slot(keyed: true), path: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        BinaryUnkeyedEncodingContainer(state: self, id: slot(keyed: false), path: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        BinarySingleValueEncodingContainer(state: self, start: slotStart, path: codingPath)
    }

    /// The container of the current slot: the one already made there when the kind matches (a
    /// subclass and its superclass sharing one keyed container), else a new one.
    private func slot(keyed: Bool) -> Int {
        if slotContainer != 0 {
            if slotIsKeyed == keyed && open.contains(slotContainer) { return slotContainer }
            fail("a second container was requested for one value")
            return -1
        }
        guard body.count == slotStart else {
            fail("a container was requested for a value already encoded")
            return -1
        }
        let id = nextID
        nextID += 1
        body.append(keyed ? .keyed : .array)
        open.append(id)
        slotContainer = id
        slotIsKeyed = keyed
        return id
    }

    /// A container nested in container `parent` (after its key or as its element).
    func nestedContainer(keyed: Bool) -> Int {
        let id = nextID
        nextID += 1
        body.append(keyed ? .keyed : .array)
        open.append(id)
        return id
    }

    func fail(_ reason: String) {
        if failure == nil {
            failure = .invalidValue((), EncodingError.Context(codingPath: codingPath, debugDescription: reason))
        }
    }

    // MARK: Entries

    /// Gets container `id` ready for its next entry: closes the containers nested in it.
    @inline(__always)
    func prepareWrite(_ id: Int) throws {
        if open.last != id || pendingValueAt >= 0 { try settle(id) }
    }

    @inline(never)
    private func settle(_ id: Int) throws {
        if pendingValueAt >= 0 {
            if body.count == pendingValueAt {
                body.append(.keyed)
                body.append(.end)
            }
            pendingValueAt = -1
        }
        guard let index = open.lastIndex(of: id) else {
            throw EncodingError.invalidValue(
                (),
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a container was written to after its parent went on (or after it was finished)"))
        }
        for _ in (index + 1)..<open.count { body.append(.end) }
        open.removeSubrange((index + 1)...)
    }

    /// Starts an entry of keyed container `id`: closes what is nested, writes the key reference.
    @inline(__always)
    func beginEntry<Key: CodingKey>(_ id: Int, _ key: Key) throws {
        try prepareWrite(id)
        body.appendVarint(keyReference(key.stringValue))
    }

    /// The key's reference (its index in the key table plus one), adding it on first use.
    @inline(__always)
    private func keyReference(_ name: String) -> Int {
        if keyHint < keys.count && keys[keyHint] == name {
            keyHint += 1
            return keyHint
        }
        return lookUpKey(name)
    }

    @inline(never)
    private func lookUpKey(_ name: String) -> Int {
        var found: Int?
        if let keyIndexes {
            found = keyIndexes[name]
        } else {
            found = keys.firstIndex(of: name)
        }
        let index: Int
        if let found {
            index = found
        } else {
            index = keys.count
            keys.append(name)
            if keyIndexes != nil {
                keyIndexes?[name] = index
            } else if keys.count > 24 {
                keyIndexes = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
            }
        }
        keyHint = index + 1
        return keyHint
    }

    /// Starts the entry a super encoder fills: its value must appear at the returned offset, or
    /// an empty keyed container is written there when the parent goes on.
    func beginSuperValue(after prepare: () throws -> Void) rethrows -> Int {
        try prepare()
        pendingValueAt = body.count
        return body.count
    }

    /// Claims the pending super entry at `start`; false once anything else was written.
    func claimSuperValue(at start: Int) -> Bool {
        guard pendingValueAt == start && body.count == start else { return false }
        pendingValueAt = -1
        return true
    }

    /// Where the value now being encoded starts.
    var currentSlotStart: Int { slotStart }

    // MARK: Values

    /// Encodes a value whose type has no tag of its own through its `encode(to:)`, as a new slot.
    func encodeNested<T: Encodable>(_ value: T) throws {
        let saved = (slotStart, slotContainer, slotIsKeyed)
        slotStart = body.count
        slotContainer = 0
        try value.encode(to: self)
        if body.count == slotStart {
            // Nothing was encoded (an empty `encode(to:)`): an empty keyed container, as JSON's `{}`.
            body.append(.keyed)
            body.append(.end)
        }
        (slotStart, slotContainer, slotIsKeyed) = saved
    }

    /// Encodes a nested value under `key`, keeping the coding path right while it runs.
    func encodeNested<T: Encodable>(_ value: T, key: any CodingKey) throws {
        codingPath.append(key)
        defer { codingPath.removeLast() }
        try encodeValue(value)
    }

    /// Ends the encoding: closes every container and assembles magic, version, key table and body.
    func finish() throws -> Data {
        if pendingValueAt >= 0 && body.count == pendingValueAt {
            body.append(.keyed)
            body.append(.end)
        }
        for _ in open { body.append(.end) }
        open.removeAll()
        if let failure { throw failure }
        var tableSize = 2 + varintSize(keys.count)
        for index in keys.indices {
            let length = keys[index].utf8.count
            tableSize += varintSize(length) + length
        }
        var output = BinaryBuffer(capacity: tableSize + body.count)
        output.append(BinaryFormat.magic)
        output.append(BinaryFormat.version)
        output.appendVarint(keys.count)
        for key in keys { output.appendLengthPrefixed(key) }
        output.append(UnsafeRawBufferPointer(start: body.base, count: body.count))
        let count = output.count
        return Data(bytesNoCopy: output.base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    private func varintSize(_ value: Int) -> Int {
        var size = 1
        var value = UInt64(value) >> 7
        while value != 0 {
            size += 1
            value >>= 7
        }
        return size
    }
}
