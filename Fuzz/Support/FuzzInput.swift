public import Foundation

/// Reads a fuzzer's input front to back, so a target can derive structured choices (a chain, a
/// row, argument kinds) from its first bytes and use the rest as the thing under test.
///
/// Reading past the end yields zeros and empty data instead of failing: every input, however
/// short, maps to some case, which keeps the fuzzer from wasting runs on rejected inputs.
public struct FuzzInput {
    private let bytes: Data
    private var offset: Int

    /// Starts reading at the first byte of `bytes`.
    public init(_ bytes: Data) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.endIndex }

    /// The next byte, or 0 once the input is used up.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.endIndex else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Up to `count` next bytes (fewer at the end of the input).
    public mutating func bytes(_ count: Int) -> Data {
        let end = min(bytes.endIndex, offset + max(0, count))
        defer { offset = end }
        return Data(bytes[offset..<end])
    }

    /// Every byte not read yet.
    public mutating func rest() -> Data {
        bytes(bytes.endIndex - offset)
    }
}
