// The code of HandlingErrors.md. The harness makes each block meet the error it catches: a key
// that does not open the file, and an encrypted row moved onto another row's key.

import Coffer
import Foundation

/// Runs the article's blocks in order in `directory`.
func handlingErrors(in directory: URL) throws {
    let url = directory.appendingPathComponent("notes.db")  // harness
    do { _ = try openDatabase(in: directory, named: "notes") }  // harness: a file under another key
    _ = Database.waitUntilClosed(url)  // harness
    var options = DatabaseOptions()  // harness
    options.key = .raw(randomKey())  // harness
    var opened = false  // harness

    do {
        let db = try Database(url: url, options: options)
        opened = db.url == url  // harness
    } catch DatabaseError.wrongKey, DatabaseError.wrongPassphrase {
        print("Wrong key or passphrase; ask again.")
    } catch DatabaseError.corrupt, DatabaseError.notADatabase, DatabaseError.emptyFile {
        print("The file is damaged; restore a backup. It was left untouched.")
    } catch {
        print("Cannot open the database:", error)
    }
    try expect(!opened, "a wrong key does not open the file")  // harness

    struct Note: Codable, Sendable { var title: String }  // harness
    let notes = CollectionHandle<Note>("notes")  // harness
    let keyring = try Keyring(key: DataKey.random(), id: 1)  // harness
    let db = try openDatabase(in: directory, named: "tampered")  // harness
    try db.register(notes, stages: [.aesGCM(keyring)])  // harness
    let writer = try db.newConnection()  // harness
    try writer.readWrite { tx in  // harness
        try tx.set(Note(title: "one"), forKey: "n1", in: notes)  // harness
        try tx.set(Note(title: "two"), forKey: "n2", in: notes)  // harness
    }  // harness
    let moved = try writer.read { tx in try tx.serializedObject(forKey: "n2", inCollection: "notes") }  // harness
    db.registerData(forCollection: "notes")  // harness: write n2's sealed bytes as they are onto n1
    try writer.readWrite { tx in try tx.setObject(moved ?? Data(), forKey: "n1", inCollection: "notes") }  // harness
    db.registerCodable(Note.self, forCollection: "notes", stages: [.aesGCM(keyring)])  // harness
    let connection = try db.newConnection()  // harness: a connection with nothing cached

    do {
        let note = try connection.read { tx in try tx.object(forKey: "n1", in: notes) }
        print(note?.title ?? "no note")
    } catch SerializationError.authenticationFailed {
        print("The row was altered or moved; restore it.")
    } catch DatabaseError.serialization {
        print("The row does not decode.")
    }

    do {
        let db = try Database(url: url, options: options)
        opened = db.url == url  // harness
    } catch let error as DatabaseError {
        switch error.code {
        case .wrongKey, .wrongPassphrase: print("Wrong key or passphrase; ask again.")
        default: print("Cannot open", error.path ?? "the database", "—", error.recoverySuggestion ?? "")
        }
    }
    try expect(!opened, "a wrong key does not open the file")  // harness
}
