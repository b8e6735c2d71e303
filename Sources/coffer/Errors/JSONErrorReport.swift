import Foundation

/// What `coffer --json` writes on standard error when a command fails: one JSON object on one
/// line, `{"code":"wrongKey","exitStatus":3,"message":"…"}`, and nothing else.
///
/// The field names are part of the tool's interface (documented in `coffer --help`): `code` is a
/// stable name from ``ErrorCodes``, `message` the same one-line text the plain output shows
/// (without the `coffer: error:` prefix, and as free of secrets), `exitStatus` the status the
/// process exits with.
struct JSONErrorReport: Codable, Equatable {
    /// The stable name of the failure.
    var code: String
    /// The one-line explanation.
    var message: String
    /// The process's exit status.
    var exitStatus: Int32

    /// The report of a rendered error.
    init(_ rendering: ErrorRenderer.Rendering) {
        code = rendering.code
        message = ErrorRenderer.withoutPrefix(rendering.text)
        exitStatus = rendering.status.rawValue
    }

    /// Creates a report from its fields.
    init(code: String, message: String, exitStatus: Int32) {
        self.code = code
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The report as one line of JSON; a fixed fallback if encoding fails, so the promise of one
    /// JSON object holds even then.
    func encoded() -> String {
        JSONOutput.text(of: self) ?? #"{"code":"failure","exitStatus":1,"message":"cannot encode the error report"}"#
    }

    /// A help screen as one JSON document, `{"help": "…"}`, for `--help` given with `--json`.
    static func helpDocument(_ text: String) -> String {
        JSONOutput.text(of: ["help": text]) ?? #"{"help":""}"#
    }
}

extension JSONErrorReport {
    /// The `--json` contract, for the root command's help text.
    static var documentation: String {
        """
        With --json (every subcommand takes it), a command that succeeds prints exactly one JSON \
        document on standard output, and one that fails prints exactly one JSON object on \
        standard error and nothing else: {"code": NAME, "message": TEXT, "exitStatus": N}. \
        NAME is stable (wrongKey, wrongPassphrase, keyRequired, notADatabase, corrupt, io, usage, \
        notFound, alreadyExists, invalidInput, keyProblem, verificationFailed, cancelled, …); N is \
        the exit status. --json turns progress off. export-json --json without --output prints \
        {"rows": [ROW, …], "count": N, "complete": true} (each ROW as in its JSON Lines output); \
        with --output the file is JSON Lines as always. verify --json prints its report even when \
        it exits with 6.
        """
    }
}
