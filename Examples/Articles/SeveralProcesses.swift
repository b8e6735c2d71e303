// The code of SeveralProcesses.md. One process cannot show another's commit here (the
// reliability tests run real child processes); the harness checks that the option took and that
// a commit of this process counts once.

import Coffer
import Foundation

/// Runs the article's blocks in order on a new database in `directory`.
func severalProcesses(in directory: URL) throws {
    let key = randomKey()  // harness
    let url = directory.appendingPathComponent("shared.db")  // harness

    var options = DatabaseOptions()
    options.key = .raw(key)
    options.multiProcessSupport = true
    let db = try Database(url: url, options: options)

    let observer = NotificationCenter.default.addObserver(
        forName: Database.modifiedNotification, object: db, queue: nil
    ) { note in
        guard let changeset = note.userInfo?[Database.changesetKey] as? Changeset else { return }
        if changeset.isExternal {
            // Another process committed: reload everything this screen shows.
        }
    }

    defer { NotificationCenter.default.removeObserver(observer) }  // harness
    try expect(db.options.multiProcessSupport, "the option is on")  // harness
    try db.newConnection().readWrite { tx in try tx.setObject("on", forKey: "mode", inCollection: "settings") }  // harness
    try db.close()  // harness
    try expect(db.snapshot == 1, "this process's own commit counted once")  // harness
}
