/// FNV-1a 64, the content hash every implementation prints to prove it stored the canonical bytes.
struct FNV1a64: Sendable {
    /// The hash of everything combined so far (the offset basis when nothing was).
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Creates a hash of the empty input.
    init() {}

    /// Continues the hash over `bytes`; values are concatenated with no separator.
    /// - Complexity: O(`bytes.count`).
    mutating func combine(_ bytes: some Sequence<UInt8>) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        value = hash
    }

    /// The hash as 16 lower-case hex digits, the form printed in reports.
    var hex: String { Self.hexString(value) }

    /// `hash` as 16 lower-case hex digits.
    static func hexString(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
