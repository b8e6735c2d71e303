// The program of Sources/Coffer/Coffer.docc/GettingStarted.md: its code blocks in the article's
// order (all but the Package.swift one), the ones inside the `do { }` block indented by it.
// CofferDocumentationTests runs this program and checks that every block still appears here
// exactly. Lines marked "harness" are not in the article: they print what the test checks.

import Coffer
import Foundation

let dataKey = DataKey.random().withUnsafeBytes { Data($0) }  // 32 random bytes
let url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID()).db")

do {
    var options = DatabaseOptions()
    options.key = .raw(dataKey)                   // exactly 32 bytes
    options.cipher = .recommended                 // 4096-byte pages for new files
    let db = try Database(url: url, options: options)

    struct Note: Codable, Sendable {
        var title: String
        var body: String
    }

    let notes = CollectionHandle<Note>("notes")
    try db.register(notes, stages: [.zlib()])

    let connection = try db.newConnection()

    try connection.readWrite { tx in
        try tx.set(Note(title: "Wi-Fi", body: "on the fridge"), forKey: "n1", in: notes)
        try tx.set(Note(title: "Bins", body: "Tuesday"), forKey: "n2", in: notes)
    }

    let titles = try connection.read { tx in
        var titles: [String] = []
        try tx.enumerateKeysAndObjects(in: notes) { key, note, stop in
            titles.append(note.title)                 // note is a Note
        }
        return titles
    }
    print(titles)                                 // ["Wi-Fi", "Bins"]

    func numberOfNotes(on connection: Connection) async throws -> Int {
        try await connection.read { tx in try tx.numberOfKeys(in: notes) }
    }
    print("notes:", try await numberOfNotes(on: connection))  // harness

    let changes = db.changes
    Task {
        for await changeset in changes where changeset.objectChanges.contains(
            CollectionKey(collection: "notes", key: "n1"))
        {
            print("n1 changed in snapshot", changeset.snapshot)
        }
    }
    try db.close()                        // before exit(…), or before touching the file
}
print("closed:", Database.waitUntilClosed(url, timeout: .zero))  // harness
