import Foundation

/// Hexadecimal text for key material and blob bytes in the manifest.
enum Hex {
    /// Lowercase hex digits of `bytes`.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The bytes of an even-length hex string.
    /// - Throws: ``GeneratorError`` when the text is not hex.
    static func data(_ text: String) throws -> Data {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw GeneratorError("odd-length hex string") }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
                throw GeneratorError("invalid hex digit")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
