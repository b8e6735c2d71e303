/// The one error type of the benchmark harness: what failed, in words fit for the terminal.
struct BenchError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is, for callers that react differently to each.
    enum Code: Sendable {
        /// A runtime sanity check of the records, keys or encoder failed: the figures would be meaningless.
        case sanity
        /// The C baseline reported an SQLite or argument error.
        case baseline
        /// An implementation reported checks that differ from the expected ones.
        case checkMismatch
        /// A file or directory of the run could not be made or read.
        case io
        /// The command line asked for something that does not exist.
        case usage
    }

    /// The kind of failure.
    let code: Code
    /// A description that never contains key bytes or stored values.
    let message: String

    /// Creates an error of kind `code` described by `message`.
    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, as the command line prints it.
    var description: String { message }
}
