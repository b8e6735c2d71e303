import ArgumentParser
import Coffer
import Foundation

/// `coffer backup`: an encrypted, verified copy of the database.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an encrypted, verified copy of the database to a new file.",
        discussion: """
            The copy is encrypted with the database's key, or with a new key given by --new-key-file \
            or --new-raw-key-file. It is written beside the destination, checked by reopening it, and \
            only then moved into place: a failed or interrupted backup leaves the destination as it \
            was (and removes a new key file made for it), even when Ctrl-C comes during the check. \
            Once the backup is in place, Ctrl-C no longer cancels it.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var newKey: NewKeyOptions
    @OptionGroup var progress: ProgressOptions
    @OptionGroup var format: OutputOptions

    @Argument(help: ArgumentHelp("Where to write the backup.", valueName: "destination"))
    var destination: String

    @Flag(name: .long, help: "Replace the destination if it exists.")
    var force = false

    func run() throws {
        let target = URL(fileURLWithPath: destination)
        guard target.standardizedFileURL.path != location.url.standardizedFileURL.path else {
            throw CLIError(.usage, "the destination is the database itself")
        }
        if !force && FileManager.default.fileExists(atPath: target.path) {
            throw CLIError(.alreadyExists, "\(target.path) already exists (use --force to replace it)")
        }
        let input = LineReader.standardInput()
        let opened = try OpenedDatabase.open(location, keys: keys, input: input)
        let created = try newKey.create(input: input)
        let output = UndoableOutput(target)
        Interruption.shared.onForcedStop {
            output.undo()
            created?.discard()
        }
        let reporter = progress.reporter(label: "backup", unit: "pages", total: nil)
        let backupProgress = BackupProgress(reporter: reporter)
        do {
            try Interruption.shared.whileCancellable {
                try opened.connection.backup(to: target, key: created?.key, progress: backupProgress)
                output.markPlaced()
                // The library verifies the copy and moves it into place without looking at
                // `backupProgress` again: a Ctrl-C in that time cancels here.
                try Interruption.shared.commit("the backup is complete")
            }
        } catch {
            Interruption.shared.onForcedStop(nil)
            reporter.finish(succeeded: false)
            created?.discard()
            let restored = output.undo()
            if (error as? DatabaseError)?.code == .cancelled || (error as? CLIError)?.code == .cancelled {
                throw CLIError.cancelled(
                    "cancelled; no backup was written"
                        + (restored ? "" : ", and the file it was to replace at \(target.path) is gone"))
            }
            throw error
        }
        output.keep()
        reporter.finish()
        let size = Info.size(of: target) ?? 0
        if format.json {
            try JSONOutput.print(
                Result(
                    database: opened.database.url.path, destination: target.path, bytes: size,
                    key: newKey.report ?? keys.report))
        } else {
            print("Backed up \(opened.database.url.path) to \(target.path) (\(size) bytes)")
            print("Key:    \(created?.summary ?? "the database's own key (\(keys.summary))")")
        }
    }

    /// `--json` output: the copy, its size and the key that opens it.
    struct Result: Codable, Equatable {
        var database: String
        var destination: String
        var bytes: Int
        var key: KeyReport
    }
}
