public import Foundation

/// Why a key file could not be created, read, unlocked, changed or written.
///
/// Messages name the file and the field or slot at fault, never passphrases, key bytes or
/// derived secrets.
public struct KeyFileError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What went wrong, as a code a caller can switch on.
    public enum Code: Sendable, Hashable {
        /// No slot of an intact key file opens with the given passphrase.
        case wrongPassphrase
        /// The file is not a well-formed key file: empty, truncated, bad magic, bad JSON, bad
        /// lengths or parameters, checksum mismatch, or a slot whose wrapped key fails to open even
        /// though its passphrase check matched.
        case damaged
        /// The file declares a format version newer than this library understands.
        case unsupportedVersion
        /// No slot has the given label.
        case slotNotFound
        /// A slot with the given label already exists.
        case slotExists
        /// The operation would remove the only slot, leaving the data key unrecoverable.
        case lastSlot
        /// A data key given to the key file is not the one it wraps.
        case keyMismatch
        /// A caller-supplied argument is unusable: an empty passphrase, a bad label, or KDF
        /// parameters outside the supported range.
        case invalidArgument
        /// The file already exists and the operation refuses to replace it.
        case fileExists
        /// Reading or writing the file failed; the message names the path and the system error.
        case io
        /// The cryptographic library failed unexpectedly (for example, it could not allocate the
        /// memory scrypt needs).
        case cryptoFailure
    }

    /// What went wrong.
    public var code: Code
    /// The file concerned, when the error is about a file.
    public var path: String?
    /// A human-readable reason; never contains secrets.
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, path: String? = nil, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// `key file <path>: reason`, then what to do about it.
    public var description: String {
        summary + ". " + code.recoverySuggestion
    }

    /// `key file <path>: reason`.
    var summary: String {
        guard let path else { return "key file: \(reason)" }
        return "key file \(path): \(reason)"
    }

    /// Same as ``description``, for Foundation's error reporting.
    public var errorDescription: String? { description }

    /// What to do about the error: ``Code/recoverySuggestion``.
    public var recoverySuggestion: String? { code.recoverySuggestion }

    /// Returns a copy naming `path`, unless the error already names one.
    func at(_ path: String) -> KeyFileError {
        var copy = self
        if copy.path == nil {
            copy.path = path
        }
        return copy
    }
}
