import ArgumentParser
import Coffer
import Foundation

/// `coffer passwd`: changes a key file's passphrase.
struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change the passphrase of an envelope key file (the database is not touched).",
        discussion: """
            The key file is rewritten atomically with the data key wrapped under the new passphrase. \
            This runs two key derivations (unwrapping with the current passphrase, wrapping under the \
            new one): a fraction of a second with the default scrypt parameters, for any database \
            size. With --passphrase-stdin and \
            --new-passphrase-stdin, the current passphrase is the first line of standard input and the \
            new one the second.
            """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var newPassphrase: NewPassphraseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard keys.keyFile != nil, keys.rawKeyFile == nil else {
            throw ValidationError("give the key file with --key-file")
        }
    }

    func run() throws {
        guard let url = keys.keyFileURL else { return }
        let input = LineReader.standardInput()
        let old = try keys.readPassphrase(input: input)
        let new = try newPassphrase.read(input: input)
        try old.withBytes { old in
            try new.withBytes { new in try KeyFile.changePassphrase(at: url, from: old, to: new) }
        }
        if output.json {
            try JSONOutput.print(Result(keyFile: url.path))
        } else {
            print("Changed the passphrase of \(url.path); the database and its key are unchanged")
        }
    }

    /// `--json` output: the key file whose passphrase changed.
    struct Result: Codable, Equatable {
        var keyFile: String
    }
}
