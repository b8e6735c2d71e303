/// The constants of Coffer's compact binary Codable format (`BINARY-FORMAT.md` beside this file).
///
/// A value is `C1 01`, a key table, then one tagged root value. `0xC1` can never appear in UTF-8,
/// so no JSON text, string or property list (`bplist…`) starts with it, and it differs from the
/// blob header's `0xC0`: a reader tells the formats apart from the first byte alone.
enum BinaryFormat {
    /// The first byte of every value.
    static let magic: UInt8 = 0xC1
    /// The format version this build writes and reads.
    static let version: UInt8 = 1
    /// How deep containers may nest before a value is refused (decoding recurses per level).
    static let maximumDepth = 256
    /// The longest decimal number text accepted (`Decimal` holds at most 38 digits).
    static let maximumDecimalLength = 64

    /// The type tag in front of each value.
    enum Tag: UInt8 {
        /// Ends a keyed or unkeyed container (where a key reference or an element would start).
        case end = 0x00
        case null = 0x01
        case `false` = 0x02
        case `true` = 0x03
        /// A signed integer, zigzag LEB128.
        case int = 0x04
        /// An unsigned integer, LEB128.
        case uint = 0x05
        /// An IEEE 754 binary64, little-endian.
        case float64 = 0x06
        /// An IEEE 754 binary32, little-endian (also a `Double` that it represents exactly).
        case float32 = 0x07
        /// UTF-8 text: length, bytes.
        case string = 0x08
        /// Bytes: length, bytes.
        case data = 0x09
        /// A `Date`: its `timeIntervalSinceReferenceDate` as binary64.
        case date = 0x0A
        /// A `URL`: its absolute string, as a string.
        case url = 0x0B
        /// A `UUID`: 16 bytes.
        case uuid = 0x0C
        /// A `Decimal`: its text (`-12.5`, `1E+3`), as a string.
        case decimal = 0x0D
        /// An unkeyed container: tagged elements up to `end`.
        case array = 0x0E
        /// A keyed container: (key reference, tagged value) pairs up to `end`.
        case keyed = 0x0F
        /// An array of scalars: element kind, count, untagged elements.
        case packed = 0x10
        /// An array of strings: count, then each length and bytes.
        case strings = 0x11
    }

    /// The element kinds of a packed array (a subset of the scalar tags).
    enum PackedKind: UInt8 {
        /// One byte each, 0 or 1.
        case bool = 0x02
        case int = 0x04
        case uint = 0x05
        case float64 = 0x06
        case float32 = 0x07
    }
}

/// Why bytes are not a well-formed binary value; reported inside a `DecodingError.dataCorrupted`
/// as its underlying error, and named by the codec's ``SerializationError`` reason.
///
/// Messages give offsets and tags only, never the value's bytes.
public struct BinaryFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the bytes.
    public enum Code: Sendable, Hashable {
        /// The first byte is not `0xC1`.
        case badMagic
        /// A format version this build cannot read.
        case unsupportedVersion
        /// The bytes end inside a value.
        case truncated
        /// A byte where a value should start is not a known tag (or a packed kind).
        case invalidTag
        /// A variable-length integer runs past 10 bytes or 64 bits.
        case invalidVarint
        /// A string or key is not valid UTF-8.
        case invalidUTF8
        /// A key reference names no entry of the key table.
        case invalidKeyReference
        /// Containers nest deeper than the format allows (256 levels).
        case tooDeep
        /// Decoding would allocate more than the decoder's limit for this input.
        case allocationLimitExceeded
        /// A date, URL, UUID or decimal whose payload is not a valid one.
        case invalidPayload
        /// Bytes follow the root value.
        case trailingBytes
        /// A value JSON cannot show (an infinite or NaN number), met while rendering JSON.
        case notRepresentableInJSON
    }

    /// What is wrong.
    public var code: Code
    /// The byte offset where it was found.
    public var offset: Int

    /// Creates an error for `code` at `offset`.
    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// The code and the offset, such as `truncated at byte 12`.
    public var description: String { "\(code) at byte \(offset)" }
}
