/// The scalar writes the unkeyed and single-value encoding containers share: each checks that it
/// may write (``begin()``), then writes the tagged value.
protocol BinaryScalarWriting {
    var state: BinaryEncodingState { get }
    /// Checks that a value may be written now, and counts it.
    mutating func begin() throws
}

extension BinaryScalarWriting {
    mutating func encodeNil() throws {
        try begin()
        state.body.append(.null)
    }

    mutating func encode(_ value: Bool) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: String) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: Double) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: Float) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: Int) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int8) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int16) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int32) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int64) throws { try signed(value) }
    mutating func encode(_ value: UInt) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { try unsigned(value) }

    private mutating func signed(_ value: Int64) throws {
        try begin()
        state.write(signed: value)
    }

    private mutating func unsigned(_ value: UInt64) throws {
        try begin()
        state.write(unsigned: value)
    }
}
