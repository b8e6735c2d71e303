// Runs the code of every DocC article of Sources/Coffer/Coffer.docc that shows any: one function
// per article, in the file named after it, each run in a directory of its own. The articles'
// blocks appear in those files exactly (CofferDocumentationTests checks it); lines marked
// "harness" are not in the articles — they set up what a block assumes and check what it did.
//
// Usage: articles-example [DIRECTORY]. With a directory, each article's files are left in
// DIRECTORY/<Article> for inspection; without one, a temporary directory is used and removed.
// Exits 1, naming the article, when an article's code fails or leaves a database open.

import Coffer
import Foundation

/// The articles, by the name of their `.md` file, with the function that runs their code.
let articles: [(name: String, run: (URL) async throws -> Void)] = [
    ("Coffer", { _ in try coffer() }),
    ("EncryptionAndKeys", encryptionAndKeys(in:)),
    ("SerializerChains", serializerChains(in:)),
    ("DatabaseExtensions", databaseExtensions(in:)),
    ("ConcurrencyAndSnapshots", concurrencyAndSnapshots(in:)),
    ("BackupAndKeyRotation", backupAndKeyRotation(in:)),
    ("HandlingErrors", handlingErrors(in:)),
    ("PreferencesAndCredentials", { try preferencesAndCredentials(in: $0) }),
    ("Observation", observation(in:)),
    ("GroupedViews", { try await groupedViews(in: $0)() }),
    ("SearchField", { try await searchField(in: $0)() }),
    ("Relationships", relationships(in:)),
    ("ScheduledActions", scheduledActions(in:)),
    ("SeveralProcesses", { try severalProcesses(in: $0) }),
    ("UploadingEditsInOrder", uploadingEditsInOrder(in:)),
]

/// A harness check that failed: what was expected.
struct ArticleCheckFailed: Error, CustomStringConvertible {
    var description: String
}

/// Throws ``ArticleCheckFailed`` unless `condition` holds.
func expect(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw ArticleCheckFailed(description: "expected: \(what())") }
}

/// A random 32-byte raw key for a harness database.
func randomKey() -> Data {
    DataKey.random().withUnsafeBytes { Data($0) }
}

/// Opens (creating it) the database `name.db` in `directory` under a new random key.
func openDatabase(in directory: URL, named name: String) throws -> Database {
    var options = DatabaseOptions()
    options.key = .raw(randomKey())
    return try Database(url: directory.appendingPathComponent("\(name).db"), options: options)
}

/// The `-wal` and `-shm` files under `directory`, which a database still open leaves behind.
func openDatabaseFiles(in directory: URL) -> [String] {
    let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
    return files.filter { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }.sorted()
}

let arguments = CommandLine.arguments.dropFirst()
let keepsFiles = !arguments.isEmpty
let root =
    arguments.first.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("coffer-articles-\(UUID())")
var failed: [String] = []
for article in articles {
    let directory = root.appendingPathComponent(article.name)
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The landing page puts its file in the temporary directory, as an app's first run would.
        setenv("TMPDIR", directory.path, 1)
        try await article.run(directory)
    } catch {
        FileHandle.standardError.write(Data("\(article.name): \(error)\n".utf8))
        failed.append(article.name)
        continue
    }
    // The article released everything it opened: its databases close and leave no -wal/-shm.
    let closed = Database.waitUntilAllClosed(timeout: .seconds(10))
    let leftovers = openDatabaseFiles(in: directory)
    if !closed || !leftovers.isEmpty {
        FileHandle.standardError.write(Data("\(article.name): a database is still open \(leftovers)\n".utf8))
        failed.append(article.name)
        continue
    }
    print("\(article.name): ok")
}
if !keepsFiles { try? FileManager.default.removeItem(at: root) }
if !failed.isEmpty {
    FileHandle.standardError.write(Data("failed: \(failed.joined(separator: ", "))\n".utf8))
    exit(1)
}
