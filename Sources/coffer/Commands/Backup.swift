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
            only then moved into place: a failed or interrupted backup leaves nothing at the \
            destination (and removes a new key file made for it).
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var keys: KeyOptions
    @OptionGroup var newKey: NewKeyOptions
    @OptionGroup var progress: ProgressOptions

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
        let reporter = progress.reporter(label: "backup", unit: "pages", total: nil)
        let backupProgress = BackupProgress(reporter: reporter)
        do {
            try Interruption.shared.whileCancellable {
                try opened.connection.backup(to: target, key: created?.key, progress: backupProgress)
            }
        } catch {
            reporter.finish(succeeded: false)
            created?.discard()
            if let error = error as? DatabaseError, error.code == .cancelled {
                throw CLIError.cancelled("cancelled; no backup was written")
            }
            throw error
        }
        reporter.finish()
        let size = Info.size(of: target) ?? 0
        print("Backed up \(opened.database.url.path) to \(target.path) (\(size) bytes)")
        print("Key:    \(created?.summary ?? "the database's own key (\(keys.summary))")")
    }
}
