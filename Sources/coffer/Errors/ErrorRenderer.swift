import ArgumentParser
import Coffer
import Foundation

/// The one place that turns any error into the text the user sees and the process's exit status.
///
/// Every command throws; nothing else prints errors or picks exit codes. Library errors keep
/// their own wording (already free of secrets) behind a short category, so the same failure
/// always reads the same way and maps to the status documented in ``ExitStatus``.
enum ErrorRenderer {
    /// What to show for an error and how to exit.
    struct Rendering: Equatable {
        /// The text; a single line for real errors, the help screen for help requests.
        var text: String
        /// The exit status.
        var status: ExitStatus
        /// The stable name of the failure for `--json` (``ErrorCodes``); empty for help.
        var code: String = ErrorCodes.failure
        /// Whether the text goes to standard output (help) rather than standard error.
        var toStandardOutput: Bool = false
    }

    /// Prints the rendering of `error` and ends the process with its status.
    ///
    /// With `--json` (``OutputMode``) a failure is one ``JSONErrorReport`` on standard error and a
    /// help screen is one `{"help": …}` document on standard output.
    static func exit(with error: any Error) -> Never {
        CofferCommand.waitForDatabasesToClose()
        let rendering = render(error)
        if OutputMode.isJSON {
            if rendering.toStandardOutput {
                StandardStreams.writeOutput(JSONErrorReport.helpDocument(rendering.text) + "\n")
            } else {
                StandardStreams.writeError(JSONErrorReport(rendering).encoded() + "\n")
            }
        } else if rendering.toStandardOutput {
            StandardStreams.writeOutput(rendering.text.hasSuffix("\n") ? rendering.text : rendering.text + "\n")
        } else {
            StandardStreams.writeError(rendering.text + "\n")
        }
        Foundation.exit(rendering.status.rawValue)
    }

    /// Decides the text and status for `error`.
    static func render(_ error: any Error) -> Rendering {
        switch error {
        case let error as NotedError:
            var rendering = render(error.underlying)
            rendering.text += "; \(error.note)"
            return rendering
        case let error as CLIError:
            return Rendering(
                text: line(error.message), status: status(for: error.code), code: ErrorCodes.name(of: error.code))
        case let error as DatabaseError:
            return render(error)
        case let error as KeyFileError:
            return Rendering(
                text: line("key file problem: \(error)"), status: status(for: error.code),
                code: ErrorCodes.name(of: error.code))
        case let error as SerializationError:
            return Rendering(
                text: line("cannot decode a value: \(error)"), status: .failure, code: ErrorCodes.serialization)
        case let error as CocoaError:
            return Rendering(text: line("file error: \(error.localizedDescription)"), status: .io, code: ErrorCodes.io)
        case let error as POSIXError:
            return Rendering(
                text: line("system error: \(error.localizedDescription)"), status: .io, code: ErrorCodes.io)
        default:
            return renderArgumentParserError(error)
        }
    }

    /// `category: message (collection "c", key "k", file /p) — underlying`, without the raw code name.
    private static func render(_ error: DatabaseError) -> Rendering {
        let (category, status) = category(for: error.code)
        var text = "\(category): \(error.message)"
        var context: [String] = []
        if let collection = error.collection { context.append("collection \"\(collection)\"") }
        if let key = error.key { context.append("key \"\(key)\"") }
        if let path = error.path { context.append("file \(path)") }
        if let code = error.sqliteCode { context.append("SQLite code \(code)") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        // Serialization causes add detail; SQLite and key-file causes only repeat the message.
        if let underlying = error.underlying, [.serialization, .typeMismatch, .extensionFailure].contains(error.code) {
            text += " — \(underlying)"
        }
        return Rendering(text: line(text), status: status, code: error.code.rawValue)
    }

    /// The user-facing category and exit status of a library error code.
    static func category(for code: DatabaseError.Code) -> (String, ExitStatus) {
        switch code {
        case .wrongKey: ("wrong key", .keyProblem)
        case .wrongPassphrase: ("wrong passphrase", .keyProblem)
        case .keyRequired: ("key required", .keyProblem)
        case .invalidKey: ("unusable key", .keyProblem)
        case .damagedKeyFile: ("damaged key file", .keyProblem)
        case .notEncrypted: ("not an encrypted database", .notADatabase)
        case .notADatabase: ("not a database", .notADatabase)
        case .corrupt: ("damaged database", .notADatabase)
        case .emptyFile: ("empty file", .notADatabase)
        case .unsupportedFormat: ("unsupported format", .notADatabase)
        case .io: ("I/O error", .io)
        case .readOnly: ("read-only", .io)
        case .cancelled: ("cancelled", .cancelled)
        default: ("error", .failure)
        }
    }

    private static func status(for code: CLIError.Code) -> ExitStatus {
        switch code {
        case .usage: .usage
        case .keyProblem: .keyProblem
        case .invalidInput, .notFound, .alreadyExists: .failure
        case .io: .io
        case .verificationFailed: .verificationFailed
        case .cancelled: .cancelled
        }
    }

    private static func status(for code: KeyFileError.Code) -> ExitStatus {
        switch code {
        case .wrongPassphrase, .damaged, .unsupportedVersion, .invalidArgument, .keyMismatch: .keyProblem
        case .io: .io
        default: .failure
        }
    }

    /// Help requests and parse errors, as swift-argument-parser describes them; its usage status
    /// (64) becomes ours (2).
    private static func renderArgumentParserError(_ error: any Error) -> Rendering {
        let code = CofferCommand.exitCode(for: error)
        if code == .success {
            return Rendering(
                text: CofferCommand.fullMessage(for: error), status: .success, code: "", toStandardOutput: true)
        }
        if code == .validationFailure {
            return Rendering(
                text: line(CofferCommand.message(for: error)) + " (see 'coffer help')", status: .usage,
                code: ErrorCodes.usage)
        }
        if code.rawValue == ExitStatus.cancelled.rawValue {
            return Rendering(text: line("cancelled"), status: .cancelled, code: ErrorCodes.cancelled)
        }
        return Rendering(text: line(CofferCommand.message(for: error)), status: .failure)
    }

    /// The one-line description of `error` without the `coffer: error:` prefix, for reports that
    /// list several failures (`verify`).
    static func describe(_ error: any Error) -> String {
        withoutPrefix(render(error).text)
    }

    /// `text` without the `coffer: error: ` prefix that ``line(_:)`` adds.
    static func withoutPrefix(_ text: String) -> String {
        text.hasPrefix(linePrefix) ? String(text.dropFirst(linePrefix.count)) : text
    }

    private static let linePrefix = "coffer: error: "

    /// `coffer: error: <message>` on one line, whatever the message contains.
    static func line(_ message: String) -> String {
        var text = message
        for prefix in ["Error: ", "error: "] where text.hasPrefix(prefix) {
            text.removeFirst(prefix.count)
        }
        let flat = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return linePrefix + flat.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
