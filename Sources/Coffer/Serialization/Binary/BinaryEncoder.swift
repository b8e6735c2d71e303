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
    /// The key table of the last value encoded, which the next one most likely shares.
    private let cache = BinaryKeyTableCache()

    /// Creates an encoder.
    public init() {}

    /// Encodes `value`.
    ///
    /// - Returns: The encoded bytes, starting with `C1 01`.
    /// - Throws: `EncodingError.invalidValue` when the value's `encode(to:)` throws it or misuses
    ///   the containers; any error the value's own `encode(to:)` throws.
    /// - Complexity: O(size of the encoding).
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let state = BinaryEncodingState(userInfo: userInfo, cache: cache)
        defer { state.release() }
        try state.encodeValue(value)
        return try state.finish()
    }
}

/// One encoding in progress: the `Encoder` every value of it is handed, with the output buffer,
/// the key table and the containers that are still open.
final class BinaryEncodingState: Encoder {
    /// The mutable state, behind a pointer: every access to a class's stored `var` pays a dynamic
    /// exclusivity check, which cost a third of an encoding's instructions.
    private let storage: UnsafeMutablePointer<Storage>

    private struct Storage {
        var body = BinaryBuffer(capacity: 256)
        /// The key table, in order of first use: its first `usedKeys` entries.
        ///
        /// While `followsCache`, the rest are the cached table's keys this value has not used yet.
        var keys: [String] = []
        var usedKeys = 0
        var followsCache = true
        /// The cached table's bytes, when `keys` started as the cached keys.
        var cachedBytes: [UInt8]?
        /// Where the next key is likely to be in `keys` (fields come in the same order each time).
        var keyHint = 0
        /// `keys` by name, once the table is too long to scan.
        var keyIndexes: [String: Int]?
        /// Ids of the containers still open, innermost last.
        var open = BinaryOpenContainers()
        var nextID = 1
        /// Where the value now being encoded starts, and the container it asked for (0: none yet).
        var slotStart = 0
        var slotContainer = 0
        var slotIsKeyed = false
        /// Where a super encoder's value must appear, -1 when none is pending.
        var pendingValueAt = -1
        /// A misuse seen in a call that cannot throw, thrown when the encoding finishes.
        var failure: EncodingError?
        var codingPath: [any CodingKey] = []
    }

    var body: BinaryBuffer {
        _read { yield storage.pointee.body }
        _modify { yield &storage.pointee.body }
    }
    private var keys: [String] {
        _read { yield storage.pointee.keys }
        _modify { yield &storage.pointee.keys }
    }
    private var usedKeys: Int {
        get { storage.pointee.usedKeys }
        set { storage.pointee.usedKeys = newValue }
    }
    private var followsCache: Bool {
        get { storage.pointee.followsCache }
        set { storage.pointee.followsCache = newValue }
    }
    private var keyHint: Int {
        get { storage.pointee.keyHint }
        set { storage.pointee.keyHint = newValue }
    }
    private var keyIndexes: [String: Int]? {
        _read { yield storage.pointee.keyIndexes }
        _modify { yield &storage.pointee.keyIndexes }
    }
    private var open: BinaryOpenContainers {
        _read { yield storage.pointee.open }
        _modify { yield &storage.pointee.open }
    }
    private var nextID: Int {
        get { storage.pointee.nextID }
        set { storage.pointee.nextID = newValue }
    }
    private var slotStart: Int {
        get { storage.pointee.slotStart }
        set { storage.pointee.slotStart = newValue }
    }
    private var slotContainer: Int {
        get { storage.pointee.slotContainer }
        set { storage.pointee.slotContainer = newValue }
    }
    private var slotIsKeyed: Bool {
        get { storage.pointee.slotIsKeyed }
        set { storage.pointee.slotIsKeyed = newValue }
    }
    private var pendingValueAt: Int {
        get { storage.pointee.pendingValueAt }
        set { storage.pointee.pendingValueAt = newValue }
    }
    var failure: EncodingError? {
        get { storage.pointee.failure }
        set { storage.pointee.failure = newValue }
    }
    var codingPath: [any CodingKey] {
        _read { yield storage.pointee.codingPath }
        _modify { yield &storage.pointee.codingPath }
    }
    private let userInfoStorage: [CodingUserInfoKey: any Sendable]
    private let cache: BinaryKeyTableCache

    init(userInfo: [CodingUserInfoKey: any Sendable], cache: BinaryKeyTableCache) {
        userInfoStorage = userInfo
        self.cache = cache
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
        if let cached = cache.load() {
            storage.pointee.keys = cached.keys
            storage.pointee.cachedBytes = cached.bytes
        } else {
            storage.pointee.followsCache = false
        }
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
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
            if slotIsKeyed == keyed && open.index(of: slotContainer) != nil { return slotContainer }
            fail("a second container was requested for one value")
            return -1
        }
        guard body.count == slotStart else {
            fail("a container was requested for a value already encoded")
            return -1
        }
        let id = push(keyed: keyed)
        slotContainer = id
        slotIsKeyed = keyed
        return id
    }

    /// Opens a container where the current value starts; refuses nesting the decoder would.
    private func push(keyed: Bool) -> Int {
        guard open.count < BinaryFormat.maximumDepth else {
            fail("containers nest deeper than \(BinaryFormat.maximumDepth) levels")
            return -1
        }
        let id = nextID
        nextID += 1
        body.append(keyed ? .keyed : .array)
        open.push(id)
        return id
    }

    /// A container nested in container `parent` (after its key or as its element).
    func nestedContainer(keyed: Bool) -> Int {
        push(keyed: keyed)
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
        if open.top != id || pendingValueAt >= 0 { try settle(id) }
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
        guard id > 0, let index = open.index(of: id) else {
            throw EncodingError.invalidValue(
                (),
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a container was written to after its parent went on (or after it was finished)"))
        }
        for _ in (index + 1)..<open.count { body.append(.end) }
        open.truncate(to: index + 1)
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
        let hint = keyHint
        if hint < usedKeys && Self.same(keys[hint], name) {
            keyHint = hint + 1
            return hint + 1
        }
        // A key the cached table has next is new to this value: the cached keys are distinct.
        if followsCache && hint == usedKeys && usedKeys < keys.count && Self.same(keys[usedKeys], name) {
            usedKeys += 1
            keyHint = usedKeys
            return usedKeys
        }
        return lookUpKey(name)
    }

    /// String equality with the cheap checks first: the same storage (a `CodingKeys` literal seen
    /// before) or a different length settle most comparisons without looking at the text.
    @inline(__always)
    private static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }

    @inline(never)
    private func lookUpKey(_ name: String) -> Int {
        if followsCache {
            // A key this value used already (the next element of an array of structs) keeps the
            // cached order; any other leaves it: the table is then what this value used so far.
            if let found = keys[..<usedKeys].firstIndex(where: { Self.same($0, name) }) {
                keyHint = found + 1
                return keyHint
            }
            followsCache = false
            keys.removeSubrange(usedKeys...)
        }
        var found: Int?
        if let keyIndexes {
            found = keyIndexes[name]
        } else {
            found = keys.firstIndex { Self.same($0, name) }
        }
        let index: Int
        if let found {
            index = found
        } else {
            index = keys.count
            keys.append(name)
            usedKeys = keys.count
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

    /// Ends the encoding: closes every container and assembles magic, version, key table and body.
    func finish() throws -> Data {
        if pendingValueAt >= 0 && body.count == pendingValueAt {
            body.append(.keyed)
            body.append(.end)
        }
        for _ in 0..<open.count { body.append(.end) }
        open.truncate(to: 0)
        if let failure { throw failure }
        let table = keyTableBytes()
        var output = BinaryBuffer(capacity: 2 + table.count + body.count)
        output.append(BinaryFormat.magic)
        output.append(BinaryFormat.version)
        table.withUnsafeBytes { output.append($0) }
        output.append(UnsafeRawBufferPointer(start: body.base, count: body.count))
        let count = output.count
        return Data(bytesNoCopy: output.base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// The stored key table: the cached bytes when this value used exactly the cached keys, else
    /// built (and cached for the next value).
    private func keyTableBytes() -> [UInt8] {
        if followsCache && usedKeys == keys.count, let cached = storage.pointee.cachedBytes { return cached }
        let used = keys.prefix(usedKeys)
        var table = BinaryBuffer(capacity: 16 + used.reduce(0) { $0 + 2 + $1.utf8.count })
        defer { table.deallocate() }
        table.appendVarint(used.count)
        for key in used { table.appendLengthPrefixed(key) }
        let bytes = Array(UnsafeBufferPointer(start: table.base, count: table.count))
        cache.store(BinaryKeyTableCache.Entry(keys: Array(used), bytes: bytes, ranges: []))
        return bytes
    }
}
