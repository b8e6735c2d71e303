// The code of Coffer.md, the catalog's landing page. Its imports are at the top of this file.

import Coffer
import Foundation

/// Runs the landing page's example; `main.swift` points `TMPDIR` at this article's directory.
func coffer() throws {
    struct Note: Codable, Sendable {
        var title: String
        var body: String
    }
    let notes = CollectionHandle<Note>("notes")   // a collection's name and its objects' type

    // A random 256-bit key; keep it in the platform's key store, never in source code.
    let dataKey = DataKey.random().withUnsafeBytes { Data($0) }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID()).coffer")   // a new file

    var options = DatabaseOptions()
    options.key = .raw(dataKey)
    let db = try Database(url: url, options: options)   // a wrong key throws DatabaseError.wrongKey here
    try db.register(notes, stages: [.zlib()])           // JSON, then zlib

    let connection = try db.newConnection()
    try connection.readWrite { tx in
        try tx.set(Note(title: "Wi-Fi", body: "on the fridge"), forKey: "n1", in: notes)
    }
    let note = try connection.read { tx in try tx.object(forKey: "n1", in: notes) }   // a Note?
    print(note?.body ?? "missing")   // "on the fridge"
    try expect(note?.body == "on the fridge", "the note reads back")  // harness
}
