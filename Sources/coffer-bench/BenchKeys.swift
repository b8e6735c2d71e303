/// The fixed, public key material of the benchmark databases.
///
/// These keys protect throw-away benchmark files and are deliberately constant, so runs are reproducible; they are
/// still never printed. Real keys never pass through this type.
enum BenchKeys {
    /// The passphrase used for `.passphrase` configurations.
    static let passphrase: [UInt8] = Array("coffer-bench fixed passphrase".utf8)

    /// The 32 raw key bytes used for `.raw` configurations (bytes 0x00, 0x07, 0x0E, … — arbitrary but fixed).
    static let rawKey: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 * 7) }

    /// The bytes handed to SQLCipher's key call for `kind`: the passphrase itself, or the raw key spec `x'<64 hex>'`.
    static func sqlcipherKey(for kind: BenchConfiguration.KeyKind) -> [UInt8] {
        switch kind {
        case .passphrase:
            return passphrase
        case .raw:
            let hex = rawKey.map { byte in
                let digits = String(byte, radix: 16)
                return byte < 16 ? "0" + digits : digits
            }
            return Array("x'\(hex.joined())'".utf8)
        }
    }
}
