import ArgumentParser
import Coffer
import Foundation

/// A new key for a backup or a key rotation: a new envelope key file (`--new-key-file`, with its
/// passphrase from ``NewPassphraseOptions``) or a new raw key file (`--new-raw-key-file`).
struct NewKeyOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("Create this envelope key file holding a new random key.", valueName: "path"))
    var newKeyFile: String?

    @Option(
        name: .long, help: ArgumentHelp("Create this file holding a new random raw 32-byte key.", valueName: "path"))
    var newRawKeyFile: String?

    @OptionGroup var newPassphrase: NewPassphraseOptions

    func validate() throws {
        if newKeyFile != nil && newRawKeyFile != nil {
            throw ValidationError("--new-key-file and --new-raw-key-file cannot be used together")
        }
        if newKeyFile == nil && newPassphrase.isGiven {
            throw ValidationError("--new-passphrase-env and --new-passphrase-stdin need --new-key-file")
        }
    }

    /// Whether a new key was asked for.
    var isGiven: Bool { newKeyFile != nil || newRawKeyFile != nil }

    /// Creates the new key file and returns the key, or nil when no new key was asked for.
    ///
    /// The file exists from now on: call ``NewKey/discard()`` when the operation that was to use
    /// it fails, so no key file is left that opens nothing.
    /// - Throws: ``CLIError`` `.alreadyExists` (never replaces a key file), `.keyProblem`, `.io`;
    ///   ``KeyFileError``.
    func create(input: LineReader) throws -> NewKey? {
        if let newKeyFile {
            let url = URL(fileURLWithPath: newKeyFile)
            try NewKey.checkAbsent(url)
            let passphrase = try newPassphrase.read(input: input)
            return try NewKey.createKeyFile(at: url, passphrase: passphrase)
        }
        if let newRawKeyFile {
            return try NewKey.createRawKeyFile(at: URL(fileURLWithPath: newRawKeyFile))
        }
        return nil
    }
}
