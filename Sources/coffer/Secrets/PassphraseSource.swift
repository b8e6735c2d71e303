import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a passphrase comes from.
///
/// Never a command-line argument: those are visible to every user of the machine (`ps`) and end
/// up in shell history.
enum PassphraseSource: Sendable, Equatable {
    /// The value of an environment variable.
    case environment(String)
    /// The next line of standard input.
    case standardInput
    /// A prompt with echo off, when standard input is a terminal.
    case terminal

    /// The source chosen by a pair of options; the terminal when neither is given.
    /// - Throws: ``CLIError`` `.usage` when both are given.
    static func choose(environment: String?, standardInput: Bool, names: (String, String)) throws -> PassphraseSource {
        switch (environment, standardInput) {
        case (.some, true):
            throw CLIError(.usage, "\(names.0) and \(names.1) cannot be used together")
        case (.some(let variable), false): return .environment(variable)
        case (nil, true): return .standardInput
        case (nil, false): return .terminal
        }
    }

    /// Reads the passphrase.
    ///
    /// - Parameters:
    ///   - prompt: What to ask on the terminal, for example "Passphrase for key.cofferkey: ".
    ///   - confirm: Ask twice on the terminal (for new passphrases).
    ///   - input: Standard input, shared with the rest of the command.
    /// - Throws: ``CLIError`` `.keyProblem` when no passphrase can be had or it is empty; `.io`.
    func read(prompt: String, confirm: Bool = false, input: LineReader) throws -> Passphrase {
        let passphrase: Passphrase
        switch self {
        case .environment(let variable):
            guard let value = getenv(variable) else {
                throw CLIError(.keyProblem, "the environment variable \(variable) is not set")
            }
            let count = strlen(value)
            passphrase = value.withMemoryRebound(to: UInt8.self, capacity: count) {
                Passphrase(bytes: Array(UnsafeBufferPointer(start: $0, count: count)))
            }
        case .standardInput:
            guard let line = try input.readLine() else {
                throw CLIError(.keyProblem, "expected a passphrase line on standard input, found none")
            }
            passphrase = Passphrase(bytes: line)
        case .terminal:
            guard StandardStreams.inputIsTerminal else {
                throw CLIError(
                    .keyProblem,
                    "a passphrase is needed: use --passphrase-env VAR or --passphrase-stdin "
                        + "(standard input is not a terminal)")
            }
            guard let line = try TerminalPrompt.readSecretLine(prompt: prompt, from: input) else {
                throw CLIError(.keyProblem, "no passphrase was entered")
            }
            passphrase = Passphrase(bytes: line)
            if confirm {
                let again = Passphrase(bytes: try TerminalPrompt.readSecretLine(prompt: "Repeat: ", from: input) ?? [])
                guard passphrase.matches(again) else { throw CLIError(.keyProblem, "the passphrases do not match") }
            }
        }
        guard !passphrase.isEmpty else { throw CLIError(.keyProblem, "the passphrase is empty") }
        return passphrase
    }
}
