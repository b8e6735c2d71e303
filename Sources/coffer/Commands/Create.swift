import ArgumentParser
import Coffer
import Foundation

/// `coffer create`: makes a new, empty encrypted database.
struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a new encrypted database.",
        discussion: """
            The key comes from a new envelope key file (--new-key-file, protected by a passphrase), \
            a new raw key file (--new-raw-key-file) or an existing raw key file (--raw-key-file). \
            Without the key file (and its passphrase) the database cannot be opened: keep it safe.
            """)

    @OptionGroup var location: DatabaseLocation
    @OptionGroup var output: OutputOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Create this envelope key file holding a new random key.", valueName: "path"))
    var newKeyFile: String?

    @Option(
        name: .long, help: ArgumentHelp("Create this file holding a new random raw 32-byte key.", valueName: "path"))
    var newRawKeyFile: String?

    @Option(name: .long, help: ArgumentHelp("Use the raw 32-byte key in this existing file.", valueName: "path"))
    var rawKeyFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Read the new key file's passphrase from this environment variable.", valueName: "var"))
    var passphraseEnv: String?

    @Flag(name: .long, help: "Read the new key file's passphrase from the first line of standard input.")
    var passphraseStdin = false

    @Option(name: .long, help: "The page size in bytes (a power of two from 512 to 65536).")
    var pageSize = CipherSettings.recommended.pageSize ?? 4096

    func validate() throws {
        let sources = [newKeyFile, newRawKeyFile, rawKeyFile].compactMap { $0 }
        guard sources.count == 1 else {
            throw ValidationError("give exactly one of --new-key-file, --new-raw-key-file, --raw-key-file")
        }
        if newKeyFile == nil && (passphraseEnv != nil || passphraseStdin) {
            throw ValidationError("--passphrase-env and --passphrase-stdin need --new-key-file")
        }
        if passphraseEnv != nil && passphraseStdin {
            throw ValidationError("--passphrase-env and --passphrase-stdin cannot be used together")
        }
    }

    func run() throws {
        let url = location.url
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw CLIError(.alreadyExists, "\(url.path) already exists")
        }
        let input = LineReader.standardInput()
        var newKey: NewKey?
        let key: DatabaseKey
        let keySummary: String
        let keyReport: KeyReport
        if let newKeyFile {
            let keyURL = URL(fileURLWithPath: newKeyFile)
            try NewKey.checkAbsent(keyURL)
            let source = try PassphraseSource.choose(
                environment: passphraseEnv, standardInput: passphraseStdin,
                names: ("--passphrase-env", "--passphrase-stdin"))
            let passphrase = try source.read(prompt: "New passphrase: ", confirm: true, input: input)
            newKey = try NewKey.createKeyFile(at: keyURL, passphrase: passphrase)
        } else if let newRawKeyFile {
            newKey = try NewKey.createRawKeyFile(at: URL(fileURLWithPath: newRawKeyFile))
        }
        if let newKey {
            (key, keySummary) = (newKey.key, newKey.summary)
            keyReport = newKeyFile.map { KeyReport(kind: .keyFile, path: $0) } ?? KeyReport(rawKeyFile: newRawKeyFile)
        } else {
            let path = rawKeyFile ?? ""
            (key, keySummary) = (.raw(try RawKeyFile.read(from: URL(fileURLWithPath: path))), "raw key file \(path)")
            keyReport = KeyReport(rawKeyFile: path)
        }

        var options = DatabaseOptions()
        options.key = key
        options.cipher = CipherSettings(pageSize: pageSize)
        options.createIfMissing = true
        do {
            let database = try Database(url: url, options: options)
            _ = try database.newConnection().read { try $0.numberOfCollections() }
            if output.json {
                try JSONOutput.print(
                    Result(
                        database: url.path, sqlcipherVersion: database.cipherVersion, pageSize: database.pageSize,
                        key: keyReport))
            } else {
                print("Created \(url.path): SQLCipher \(database.cipherVersion), \(database.pageSize)-byte pages")
                print("Key:    \(keySummary) — without it the database cannot be opened; keep it safe")
            }
        } catch {
            newKey?.discard()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            throw error
        }
    }

    /// `--json` output.
    struct Result: Codable, Equatable {
        var database: String
        var sqlcipherVersion: String
        var pageSize: Int
        var key: KeyReport
    }
}
