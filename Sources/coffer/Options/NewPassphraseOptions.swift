import ArgumentParser

/// Where a new passphrase comes from: `--new-passphrase-env`, `--new-passphrase-stdin` (the line
/// after the current passphrase's, when both are read from standard input) or a prompt.
struct NewPassphraseOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("Read the new passphrase from this environment variable.", valueName: "var"))
    var newPassphraseEnv: String?

    @Flag(
        name: .long,
        help:
            "Read the new passphrase from standard input (the line after the current passphrase, if both are read there)."
    )
    var newPassphraseStdin = false

    /// Whether an option was given.
    var isGiven: Bool { newPassphraseEnv != nil || newPassphraseStdin }

    func validate() throws {
        if newPassphraseEnv != nil && newPassphraseStdin {
            throw ValidationError("--new-passphrase-env and --new-passphrase-stdin cannot be used together")
        }
    }

    /// Reads the new passphrase (asked twice on a terminal).
    /// - Throws: ``CLIError`` `.keyProblem`, `.io`.
    func read(input: LineReader) throws -> Passphrase {
        let source: PassphraseSource =
            newPassphraseEnv.map { .environment($0) } ?? (newPassphraseStdin ? .standardInput : .terminal)
        return try source.read(prompt: "New passphrase: ", confirm: true, input: input)
    }
}
