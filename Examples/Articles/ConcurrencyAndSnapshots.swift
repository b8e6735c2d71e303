// The code of ConcurrencyAndSnapshots.md: a read transaction that keeps its snapshot while another
// connection writes, a long-lived read transaction, and a pool of read connections.

import Coffer
import Foundation

/// Runs the article's blocks in order on a new database in `directory`.
func concurrencyAndSnapshots(in directory: URL) throws {
    struct Note: Codable, Sendable {  // harness
        var title: String  // harness
        var body: String  // harness
    }  // harness
    let notes = CollectionHandle<Note>("notes")  // harness
    let db = try openDatabase(in: directory, named: "snapshots")  // harness
    try db.register(notes)  // harness

    let reader = try db.newConnection()
    let writer = try db.newConnection()
    try reader.read { tx in
        let before = try tx.numberOfKeys(in: notes)
        try writer.readWrite { w in try w.set(Note(title: "New", body: ""), forKey: "new", in: notes) }
        let after = try tx.numberOfKeys(in: notes)
        assert(after == before)   // still the snapshot this transaction started at
    }
    try expect(try reader.read { tx in try tx.numberOfKeys(in: notes) } == 1, "the next read sees the write")  // harness

    let ui = try db.newConnection()
    _ = try ui.beginLongLivedReadTransaction()
    // … later, when a notification arrives:
    let changesets = try ui.beginLongLivedReadTransaction()
    if ui.hasChange(forCollection: "notes", in: changesets) {
        // reload the notes list from `ui`
    }
    _ = try ui.endLongLivedReadTransaction()  // harness

    let pool = ConnectionPool(database: db)
    let count = try pool.connection().read { tx in try tx.numberOfKeys(in: notes) }
    try expect(count == 1, "the pool's connection counts one note")  // harness
}
