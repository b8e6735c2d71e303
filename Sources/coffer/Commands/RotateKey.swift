import ArgumentParser
import Coffer
import Foundation

/// `coffer rotate-key`: re-encrypts the database under a new key.
struct RotateKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Re-encrypt the database under a new key (a new key file or a new raw key file).",
        discussion: """
            The whole file is re-encrypted into a copy beside it, checked, and swapped in atomically; \
            it needs free space for a second copy. Ctrl-C before the swap leaves the database with its \
            old key and removes the new key file; from the swap on, Ctrl-C no longer cancels. \
            Afterwards only the new key opens the database. To change only a key file's passphrase \
            (a fraction of a second, whatever the database's size), use 'coffer passwd'.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var newKey: NewKeyOptions
    @OptionGroup var progress: ProgressOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "A new page size in bytes (default: keep the current one).")
    var pageSize: Int?

    func validate() throws {
        guard newKey.isGiven else { throw ValidationError("give the new key: --new-key-file or --new-raw-key-file") }
    }

    func run() throws {
        let input = LineReader.standardInput()
        // The library reports no progress while it re-encrypts; the reporter shows elapsed time
        // and counts one unit when the new copy is ready to be swapped in.
        let reporter = progress.reporter(label: "rotate-key", unit: "", total: nil)
        let opened = try OpenedDatabase.open(location, keys: keys, input: input) { options in
            // The last moment the rotation can stop with nothing changed: its point of no return.
            options.keyRotationHooks.willReplaceFile = { _ in
                reporter.update(completed: 1)
                try Interruption.shared.commit("the re-encrypted copy replaces the database")
            }
        }
        guard let created = try newKey.create(input: input) else { return }
        Interruption.shared.onForcedStop { created.discard() }
        reporter.startTicking()
        do {
            try Interruption.shared.whileCancellable {
                try opened.database.rotateKey(to: created.key, cipher: pageSize.map { CipherSettings(pageSize: $0) })
            }
        } catch {
            reporter.finish(succeeded: false)
            created.discard()
            if let error = error as? CLIError, error.code == .cancelled {
                throw CLIError.cancelled("cancelled; the database keeps its old key")
            }
            throw error
        }
        reporter.finish()
        if output.json {
            try JSONOutput.print(
                Result(
                    database: opened.database.url.path, key: newKey.report ?? keys.report, retiredKey: keys.report))
            return
        }
        print("Rotated the key of \(opened.database.url.path): it now opens with \(created.summary)")
        if keys.keyFileURL != nil || keys.rawKeyFile != nil {
            print("The old \(keys.summary) no longer opens it.")
        }
    }

    /// `--json` output: the key that opens the database now, and the one that no longer does.
    struct Result: Codable, Equatable {
        var database: String
        var key: KeyReport
        var retiredKey: KeyReport
    }
}
