public import Coffer
import Foundation

/// The ways a test database can be keyed, for tests parameterised over key kinds.
public enum TestKeyKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A random 32-byte raw key: no key derivation.
    case raw
    /// A random passphrase with 1,000 PBKDF2 iterations (SQLCipher's 64,000 would slow tests down).
    case passphrase

    /// The iteration count passphrase tests use.
    public static let testKDFIterations = 1_000

    /// The kind's name, shown in test results.
    public var description: String { rawValue }

    /// Fresh options with a new random key of this kind; reuse the value to reopen the file.
    public func makeOptions() -> DatabaseOptions {
        var options = DatabaseOptions()
        switch self {
        case .raw:
            options.key = .raw(TestSupport.randomKey())
        case .passphrase:
            options.key = .passphrase(Data("pass-\(UUID().uuidString)".utf8))
            options.cipher.kdfIterations = Self.testKDFIterations
        }
        return options
    }
}
