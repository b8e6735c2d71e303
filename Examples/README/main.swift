// The example of README.md, line for line. CofferDocumentationTests runs this program and checks
// that README.md still shows exactly this code.

import Coffer
import Foundation

struct Note: Codable, Sendable { var title: String; var body: String }
let notes = CollectionHandle<Note>("notes")          // a collection's name and value type

// A new file and a new random key each run: an app keeps its key in the platform's key store.
let url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID()).db")
let dataKey = DataKey.random().withUnsafeBytes { Data($0) }  // 32 random bytes

do {
    var options = DatabaseOptions()
    options.key = .raw(dataKey)                        // or .passphrase(…), .keyFile(…)
    let db = try Database(url: url, options: options)  // a wrong key throws here (caught below)
    try db.register(notes)                             // stored as JSON; add stages: [.zlib()] etc.

    let connection = try db.newConnection()
    try connection.readWrite { tx in
        try tx.set(Note(title: "Wi-Fi", body: "on the fridge"), forKey: "n1", in: notes)
    }
    let note = try connection.read { tx in try tx.object(forKey: "n1", in: notes) }  // a Note?
    print(note?.body ?? "no note")                     // on the fridge
    try db.close()                                     // commits, checkpoints and frees the file
} catch DatabaseError.wrongKey {
    print("This key does not open \(url.path)")
}
