import ArgumentParser
import Coffer
import Foundation

/// The options that give the key of an existing database.
///
/// `--key-file` is an envelope key file (with its passphrase), `--raw-key-file` a file of 32 raw
/// bytes. Without either, the file must be unencrypted.
struct KeyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "An envelope key file; its passphrase comes from --passphrase-env, --passphrase-stdin or a prompt.",
            valueName: "path"))
    var keyFile: String?

    @Option(name: .long, help: ArgumentHelp("A file holding the raw 32-byte key.", valueName: "path"))
    var rawKeyFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Read the key file's passphrase from this environment variable.", valueName: "var"))
    var passphraseEnv: String?

    @Flag(name: .long, help: "Read the key file's passphrase from the first line of standard input.")
    var passphraseStdin = false

    func validate() throws {
        if keyFile != nil && rawKeyFile != nil {
            throw ValidationError("--key-file and --raw-key-file cannot be used together")
        }
        if keyFile == nil && (passphraseEnv != nil || passphraseStdin) {
            throw ValidationError("--passphrase-env and --passphrase-stdin need --key-file")
        }
        if passphraseEnv != nil && passphraseStdin {
            throw ValidationError("--passphrase-env and --passphrase-stdin cannot be used together")
        }
    }

    /// Where the key file's passphrase comes from.
    var passphraseSource: PassphraseSource {
        passphraseEnv.map { .environment($0) } ?? (passphraseStdin ? .standardInput : .terminal)
    }

    /// The key file, when one was given.
    var keyFileURL: URL? { keyFile.map { URL(fileURLWithPath: $0) } }

    /// A short description of the key, without secrets: "key file x.key", "raw key file k", "none".
    var summary: String {
        if let keyFile { return "key file \(keyFile)" }
        if let rawKeyFile { return "raw key file \(rawKeyFile)" }
        return "none (unencrypted)"
    }

    /// Reads the passphrase of `--key-file`.
    /// - Throws: ``CLIError`` `.keyProblem`, `.io`.
    func readPassphrase(input: LineReader) throws -> Passphrase {
        let name = keyFileURL?.lastPathComponent ?? "the key file"
        return try passphraseSource.read(prompt: "Passphrase for \(name): ", input: input)
    }

    /// The key to open the database with, or nil when no key option was given.
    /// - Throws: ``CLIError`` (reading the passphrase or the raw key file).
    func databaseKey(input: LineReader) throws -> DatabaseKey? {
        if let url = keyFileURL {
            let passphrase = try readPassphrase(input: input)
            return passphrase.withData { .keyFile(url, passphrase: $0) }
        }
        if let rawKeyFile {
            return .raw(try RawKeyFile.read(from: URL(fileURLWithPath: rawKeyFile)))
        }
        return nil
    }
}
