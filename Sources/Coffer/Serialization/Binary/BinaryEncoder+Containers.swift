/// A keyed container: entries of (key reference, tagged value), written in call order.
struct BinaryKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: BinaryEncodingState
    let id: Int
    let codingPath: [any CodingKey]

    init(state: BinaryEncodingState, id: Int, path: [any CodingKey]) {
        self.state = state
        self.id = id
        codingPath = path
    }

    mutating func encodeNil(forKey key: Key) throws {
        try state.beginEntry(id, key)
        state.body.append(.null)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try state.beginEntry(id, key)
        state.write(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try state.beginEntry(id, key)
        state.write(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try state.beginEntry(id, key)
        state.write(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try state.beginEntry(id, key)
        state.write(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try signed(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try unsigned(value, key) }

    @inline(__always)
    private func signed(_ value: Int64, _ key: Key) throws {
        try state.beginEntry(id, key)
        state.write(signed: value)
    }

    @inline(__always)
    private func unsigned(_ value: UInt64, _ key: Key) throws {
        try state.beginEntry(id, key)
        state.write(unsigned: value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try state.beginEntry(id, key)
        try state.encodeValue(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = nestedID(key, keyed: true)
        return KeyedEncodingContainer(
            BinaryKeyedEncodingContainer<NestedKey>(state: state, id: nested, path: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        BinaryUnkeyedEncodingContainer(state: state, id: nestedID(key, keyed: false), path: codingPath + [key])
    }

    private func nestedID(_ key: Key, keyed: Bool) -> Int {
        do {
            try state.beginEntry(id, key)
        } catch {
            state.fail("a nested container was requested from a container that was finished")
            return -1
        }
        return state.nestedContainer(keyed: keyed)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: BinaryCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key)
    }

    private func superEncoder(key: some CodingKey) -> any Encoder {
        do {
            let start = try state.beginSuperValue { try state.beginEntry(id, key) }
            return BinarySuperEncoder(state: state, start: start, path: codingPath + [key])
        } catch {
            state.fail("a super encoder was requested from a container that was finished")
            return BinarySuperEncoder(state: state, start: -1, path: codingPath + [key])
        }
    }
}

/// An unkeyed container: tagged elements, written in call order.
struct BinaryUnkeyedEncodingContainer: UnkeyedEncodingContainer, BinaryScalarWriting {
    let state: BinaryEncodingState
    let id: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(state: BinaryEncodingState, id: Int, path: [any CodingKey]) {
        self.state = state
        self.id = id
        codingPath = path
    }

    @inline(__always)
    mutating func begin() throws {
        try state.prepareWrite(id)
        count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try state.encodeValue(value, key: BinaryCodingKey(index: count - 1))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let path = codingPath + [BinaryCodingKey(index: count)]
        return KeyedEncodingContainer(
            BinaryKeyedEncodingContainer<NestedKey>(state: state, id: nestedID(keyed: true), path: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [BinaryCodingKey(index: count)]
        return BinaryUnkeyedEncodingContainer(state: state, id: nestedID(keyed: false), path: path)
    }

    private mutating func nestedID(keyed: Bool) -> Int {
        do {
            try begin()
        } catch {
            state.fail("a nested container was requested from a container that was finished")
            return -1
        }
        return state.nestedContainer(keyed: keyed)
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [BinaryCodingKey(index: count)]
        do {
            let start = try state.beginSuperValue { try begin() }
            return BinarySuperEncoder(state: state, start: start, path: path)
        } catch {
            state.fail("a super encoder was requested from a container that was finished")
            return BinarySuperEncoder(state: state, start: -1, path: path)
        }
    }
}

/// The single value container: one tagged value where the current value starts.
struct BinarySingleValueEncodingContainer: SingleValueEncodingContainer, BinaryScalarWriting {
    let state: BinaryEncodingState
    /// Where the value must be written; -1 for a super encoder's slot that is gone.
    let start: Int
    /// Whether `start` is a super encoder's pending entry, to be claimed on write.
    let claimsSuperValue: Bool
    let codingPath: [any CodingKey]

    init(state: BinaryEncodingState, start: Int, claimsSuperValue: Bool = false, path: [any CodingKey]) {
        self.state = state
        self.start = start
        self.claimsSuperValue = claimsSuperValue
        codingPath = path
    }

    @inline(__always)
    func begin() throws {
        let free = claimsSuperValue ? state.claimSuperValue(at: start) : state.body.count == start
        guard free else {
            throw EncodingError.invalidValue(
                (),
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "a single value container can hold one value only"))
        }
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try state.encodeValue(value)
    }
}

/// The encoder a `superEncoder()` call returns: it fills the entry made for it, once.
final class BinarySuperEncoder: Encoder {
    let state: BinaryEncodingState
    let start: Int
    let codingPath: [any CodingKey]
    /// The container made for the entry, handed out again on a second request of the same kind.
    private var containerID = 0
    private var keyed = false

    init(state: BinaryEncodingState, start: Int, path: [any CodingKey]) {
        self.state = state
        self.start = start
        codingPath = path
    }

    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(BinaryKeyedEncodingContainer<Key>(state: state, id: make(keyed: true), path: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        BinaryUnkeyedEncodingContainer(state: state, id: make(keyed: false), path: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        BinarySingleValueEncodingContainer(state: state, start: start, claimsSuperValue: true, path: codingPath)
    }

    private func make(keyed: Bool) -> Int {
        if containerID != 0 {
            if self.keyed == keyed { return containerID }
            state.fail("a second container was requested from a super encoder")
            return -1
        }
        guard start >= 0, state.claimSuperValue(at: start) else {
            state.fail("a super encoder was used after its container went on")
            return -1
        }
        containerID = state.nestedContainer(keyed: keyed)
        self.keyed = keyed
        return containerID
    }
}

/// The keys the coders make themselves: array indexes in coding paths, and `super`.
///
/// One word, so a coding path holds it without a box.
struct BinaryCodingKey: CodingKey {
    /// The index, or -1 for `super`.
    private let index: Int

    init?(stringValue: String) {
        if stringValue == "super" {
            index = -1
        } else if let index = Int(stringValue), index >= 0 {
            self.index = index
        } else {
            return nil
        }
    }

    init(intValue: Int) { index = max(intValue, 0) }

    init(index: Int) { self.index = index }

    private init(superKey: Void) { index = -1 }

    var stringValue: String { index < 0 ? "super" : String(index) }
    var intValue: Int? { index < 0 ? nil : index }

    static let `super` = BinaryCodingKey(superKey: ())
}
