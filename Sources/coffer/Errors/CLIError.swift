/// A failure detected by the command-line tool itself, before or around a library call.
///
/// Messages are shown to the user as they are: they name files, collections and keys, never
/// passphrases, key bytes or stored values.
struct CLIError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; decides the exit status.
    enum Code: Sendable, Hashable {
        /// The options given do not fit together.
        case usage
        /// No usable key or passphrase could be obtained.
        case keyProblem
        /// An input file or line is not what the command expects.
        case invalidInput
        /// The requested row or file does not exist.
        case notFound
        /// The target already exists and the command refuses to replace it.
        case alreadyExists
        /// A file could not be read or written.
        case io
        /// `verify` found problems (the report was already printed).
        case verificationFailed
        /// The user interrupted the command.
        case cancelled
    }

    /// What went wrong.
    var code: Code
    /// A one-line explanation for the user.
    var message: String

    /// Creates an error.
    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message alone.
    var description: String { message }

    /// The user interrupted a command; `detail` says what was kept or removed.
    static func cancelled(_ detail: String = "cancelled") -> CLIError {
        CLIError(.cancelled, detail)
    }
}
