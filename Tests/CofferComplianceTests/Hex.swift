import Foundation

/// Hexadecimal text as the manifest writes keys and blobs.
enum Hex {
    /// Lowercase hex digits of `bytes`.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The bytes of a hex string.
    /// - Throws: ``FixtureFailure`` when the text is not hex.
    static func data(_ text: String) throws -> Data {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw FixtureFailure("odd-length hex string in the manifest") }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                throw FixtureFailure("invalid hex in the manifest")
            }
            bytes.append(byte)
        }
        return bytes
    }
}
