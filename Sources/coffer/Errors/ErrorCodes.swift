import Coffer

/// The stable names `coffer --json` reports in an error's `code` field.
///
/// Library errors keep the name of their ``DatabaseError/Code`` (`wrongKey`, `notADatabase`, …);
/// the tool's own failures and key-file failures use the names below, and a key-file failure
/// that means the same as a database code (a wrong passphrase) uses that code's name, so a
/// script tests one name whichever layer noticed the problem.
enum ErrorCodes {
    /// The command line was malformed, or its options do not fit together.
    static let usage = "usage"
    /// A failure not covered by a more specific name.
    static let failure = "failure"
    /// A file could not be read or written.
    static let io = "io"
    /// A stored value could not be decoded.
    static let serialization = DatabaseError.Code.serialization.rawValue
    /// The user interrupted the command.
    static let cancelled = "cancelled"

    /// The name of one of the tool's own failures.
    static func name(of code: CLIError.Code) -> String {
        switch code {
        case .usage: usage
        case .keyProblem: "keyProblem"
        case .invalidInput: "invalidInput"
        case .notFound: "notFound"
        case .alreadyExists: "alreadyExists"
        case .io: io
        case .verificationFailed: "verificationFailed"
        case .cancelled: cancelled
        }
    }

    /// The name of a key-file failure.
    static func name(of code: KeyFileError.Code) -> String {
        switch code {
        case .wrongPassphrase: DatabaseError.Code.wrongPassphrase.rawValue
        case .damaged: DatabaseError.Code.damagedKeyFile.rawValue
        case .unsupportedVersion: "unsupportedKeyFileVersion"
        case .slotNotFound: "keyFileSlotNotFound"
        case .slotExists: "keyFileSlotExists"
        case .lastSlot: "keyFileLastSlot"
        case .keyMismatch: "keyFileKeyMismatch"
        case .invalidArgument: "invalidKeyFileArgument"
        case .fileExists: "alreadyExists"
        case .io: io
        case .cryptoFailure: "cryptoFailure"
        }
    }
}
