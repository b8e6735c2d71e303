/// A keyed container: looks keys up among its entries, starting after the last one found.
struct BinaryKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: BinaryDecodingState
    /// The offset of the first entry.
    let start: Int
    let depth: Int
    let codingPath: [any CodingKey]

    init(state: BinaryDecodingState, start: Int, depth: Int, path: [any CodingKey]) {
        self.state = state
        self.start = start
        self.depth = depth
        codingPath = path
    }

    /// The offset of `key`'s value, or nil when the container has no such entry.
    @inline(__always)
    private func find(_ key: some CodingKey) throws -> Int? {
        var name = key.stringValue
        let start = start
        let depth = depth
        let state = state
        let found = name.withUTF8 { bytes in
            Result { () throws(BinaryFormatError) in try state.find(bytes, in: start, depth: depth) }
        }
        switch found {
        case .success(let offset): return offset
        case .failure(let error): throw BinaryDecodingState.corrupt(error, codingPath + [key])
        }
    }

    /// The offset of `key`'s value, or `keyNotFound`.
    @inline(__always)
    private func require(_ key: some CodingKey) throws -> Int {
        guard let offset = try find(key) else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key"))
        }
        return offset
    }

    /// The offset of `key`'s value when it holds something other than null.
    @inline(__always)
    private func present(_ key: Key) throws -> Int? {
        guard let offset = try find(key), try state.tag(at: offset, codingPath + [key]) != .null else { return nil }
        return offset
    }

    var allKeys: [Key] {
        var keys: [Key] = []
        var offset = start
        do {
            while true {
                var valueAt = offset
                let reference = try state.reader.varint(&valueAt)
                if reference == 0 { return keys }
                try state.charge(64, at: offset)
                if let key = Key(stringValue: try state.keyName(reference, at: offset)) { keys.append(key) }
                offset = try state.reader.skip(valueAt, depth: depth + 1)
            }
        } catch {
            // `allKeys` cannot throw: a damaged container lists the keys before the damage, and
            // reading any of its values reports it.
            return keys
        }
    }

    func contains(_ key: Key) -> Bool { (try? find(key)) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        try state.tag(at: try require(key), codingPath + [key]) == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try state.decodeBool(at: try require(key), codingPath + [key])
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try state.decodeString(at: try require(key), codingPath + [key])
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try state.decodeDouble(at: try require(key), codingPath + [key])
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try state.decodeFloat(at: try require(key), codingPath + [key])
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    @inline(__always)
    private func integer<Integer: FixedWidthInteger>(_ key: Key) throws -> Integer {
        try state.decodeInteger(Integer.self, at: try require(key), codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.decodeValue(T.self, at: try require(key), key: key)
    }

    // One lookup for a missing or null optional (the protocol's defaults look the key up twice).

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try state.decodeBool(at: $0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try state.decodeString(at: $0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try state.decodeDouble(at: $0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try state.decodeInteger(Int.self, at: $0, codingPath + [key]) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try state.decodeValue(T.self, at: $0, key: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try state.keyedContainer(at: try require(key), depth: try nestedDepth(key), path: codingPath + [key])
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try state.unkeyedContainer(at: try require(key), depth: try nestedDepth(key), path: codingPath + [key])
    }

    private func nestedDepth(_ key: Key) throws -> Int {
        guard depth + 1 < BinaryFormat.maximumDepth else {
            throw BinaryDecodingState.corrupt(BinaryFormatError(.tooDeep, at: start), codingPath + [key])
        }
        return depth + 1
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(key: BinaryCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(key: key)
    }

    private func superDecoder(key: some CodingKey) throws -> any Decoder {
        let offset = try require(key)
        guard depth + 1 < BinaryFormat.maximumDepth else {
            throw BinaryDecodingState.corrupt(BinaryFormatError(.tooDeep, at: offset), codingPath + [key])
        }
        return BinaryNestedDecoder(state: state, offset: offset, depth: depth + 1, path: codingPath + [key])
    }
}
