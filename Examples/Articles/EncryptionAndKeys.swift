// The code of EncryptionAndKeys.md: an envelope key file, a database keyed by it, a recovery slot
// and a passphrase change, then both passphrases opening the database again.

import Coffer
import Foundation

/// Runs the article's blocks in order in `directory`.
func encryptionAndKeys(in directory: URL) throws {
    let keyURL = directory.appendingPathComponent("notes.key")  // harness
    let databaseURL = directory.appendingPathComponent("notes.db")  // harness
    do {
        let passphrase = Data("correct horse battery staple".utf8)
        _ = try KeyFile.create(at: keyURL, passphrase: passphrase)   // refuses to replace a file

        var options = DatabaseOptions()
        options.key = .keyFile(keyURL, passphrase: passphrase)
        let db = try Database(url: databaseURL, options: options)

        try expect(try db.newConnection().integrityCheck() == ["ok"], "the new database checks out")  // harness

        // Add a recovery slot, unlocked with the existing passphrase.
        let recovery = Data("tiger-apple-9914-orbit".utf8)
        try KeyFile.read(from: keyURL)
            .addingSlot(label: "recovery", passphrase: recovery, unlockingWith: passphrase)
            .write(to: keyURL)

        // Change a passphrase: the database is not touched.
        try KeyFile.changePassphrase(at: keyURL, from: passphrase, to: Data("a new passphrase".utf8))
    }  // harness: `db` is released here, so the file can be opened again
    for passphrase in ["tiger-apple-9914-orbit", "a new passphrase"] {  // harness
        var options = DatabaseOptions()  // harness
        options.key = .keyFile(keyURL, passphrase: Data(passphrase.utf8))  // harness
        _ = Database.waitUntilClosed(databaseURL)  // harness
        let db = try Database(url: databaseURL, options: options)  // harness
        try expect(try db.newConnection().integrityCheck() == ["ok"], "\(passphrase) opens it")  // harness
    }  // harness
}
