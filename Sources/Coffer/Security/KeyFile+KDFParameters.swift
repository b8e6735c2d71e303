import Crypto
import CryptoExtras
import Foundation

extension KeyFile {
    /// The password-based key derivation a slot uses to turn a passphrase into its wrapping key.
    ///
    /// Two algorithms are supported, both from swift-crypto's `CryptoExtras`:
    /// - **scrypt** (`KDF.Scrypt`): memory-hard; the default is N = 2^15, r = 8, p = 1, which needs
    ///   32 MiB and takes tens of milliseconds in a release build — paid once per unlock, never per
    ///   connection, since the database is keyed with the unwrapped data key.
    /// - **PBKDF2-HMAC-SHA256** (`KDF.Insecure.PBKDF2`): for platforms where scrypt's memory is too
    ///   much; use at least 600,000 iterations (OWASP's 2023 figure for SHA-256).
    ///
    /// Parameters are stored in each slot, so slots of one file may differ and old slots keep
    /// working after the default changes. The accepted ranges below guard both against mistakes
    /// when creating a slot and against a crafted file that would make unlocking take unbounded
    /// memory or time; a file outside them is reported as `damaged`.
    public enum KDFParameters: Sendable, Hashable, CustomStringConvertible {
        /// scrypt with cost `n` (a power of two), block size `r` and parallelism `p`.
        case scrypt(n: Int, r: Int, p: Int)
        /// PBKDF2 with HMAC-SHA256 and the given iteration count.
        case pbkdf2SHA256(iterations: Int)

        /// scrypt with N = 2^15, r = 8, p = 1 (32 MiB of memory per derivation).
        public static let `default` = KDFParameters.scrypt(n: 1 << 15, r: 8, p: 1)

        /// The smallest scrypt cost accepted (2^10); meant for tests, too weak for real passphrases.
        public static let minimumScryptCost = 1 << 10
        /// The largest memory an scrypt slot may ask for, 128·N·r·p bytes: 1 GiB.
        public static let maximumScryptMemory = 1 << 30
        /// The smallest PBKDF2 iteration count accepted (1,000); meant for tests.
        public static let minimumPBKDF2Iterations = 1_000
        /// The largest PBKDF2 iteration count accepted (100,000,000).
        public static let maximumPBKDF2Iterations = 100_000_000

        /// `scrypt(N=32768, r=8, p=1)` or `pbkdf2-sha256(600000)`.
        public var description: String {
            switch self {
            case .scrypt(let n, let r, let p):
                return "scrypt(N=\(n), r=\(r), p=\(p))"
            case .pbkdf2SHA256(let iterations):
                return "pbkdf2-sha256(\(iterations))"
            }
        }

        /// Checks the parameters against the accepted ranges and returns why they fail, if they do.
        func validationFailure() -> String? {
            switch self {
            case .scrypt(let n, let r, let p):
                guard n >= Self.minimumScryptCost, n.nonzeroBitCount == 1 else {
                    return "scrypt N must be a power of two of at least \(Self.minimumScryptCost)"
                }
                guard (1...64).contains(r), (1...16).contains(p) else {
                    return "scrypt r must be in 1...64 and p in 1...16"
                }
                let (memory, overflow) = (128 * r * p).multipliedReportingOverflow(by: n)
                guard !overflow, memory <= Self.maximumScryptMemory else {
                    return "scrypt parameters need more than \(Self.maximumScryptMemory >> 20) MiB"
                }
                return nil
            case .pbkdf2SHA256(let iterations):
                guard (Self.minimumPBKDF2Iterations...Self.maximumPBKDF2Iterations).contains(iterations) else {
                    return
                        "PBKDF2 iterations must be in \(Self.minimumPBKDF2Iterations)...\(Self.maximumPBKDF2Iterations)"
                }
                return nil
            }
        }

        /// Derives 32 bytes from `passphrase` and `salt`.
        ///
        /// - Throws: `invalidArgument` for an empty passphrase or parameters out of range,
        ///   `cryptoFailure` when the library fails.
        /// - Complexity: The KDF's cost: 128·N·r·p bytes and O(N·r·p) time for scrypt, O(iterations) for PBKDF2.
        func deriveKey(passphrase: some DataProtocol, salt: [UInt8]) throws(KeyFileError) -> SymmetricKey {
            // swift-crypto hands the passphrase's base address to BoringSSL unchecked: refuse empty input here.
            guard !passphrase.isEmpty else {
                throw KeyFileError(.invalidArgument, reason: "the passphrase is empty")
            }
            if let failure = validationFailure() {
                throw KeyFileError(.invalidArgument, reason: failure)
            }
            do {
                switch self {
                case .scrypt(let n, let r, let p):
                    return try KDF.Scrypt.deriveKey(
                        from: passphrase, salt: salt, outputByteCount: 32, rounds: n, blockSize: r, parallelism: p)
                case .pbkdf2SHA256(let iterations):
                    return try KDF.Insecure.PBKDF2.deriveKey(
                        from: passphrase, salt: salt, using: .sha256, outputByteCount: 32,
                        unsafeUncheckedRounds: iterations)
                }
            } catch {
                throw KeyFileError(.cryptoFailure, reason: "key derivation \(description) failed")
            }
        }
    }
}
