// The code of BackupAndKeyRotation.md: backups, encrypting a plaintext file, rotating the database
// key (with an app's key store, stood in for by `KeyStore`), and rotating a value key.

import Coffer
import Foundation
import Synchronization

/// Harness: a stand-in for the app's key store the article's rotation code talks to. It keeps the
/// key that opens the file and, during a rotation, the new one.
final class KeyStore: Sendable {
    private let keys: Mutex<(current: Data, pending: Data?)>

    init(current: Data) { keys = Mutex((current, nil)) }

    /// The key that opens the file now.
    var current: Data { keys.withLock { $0.current } }

    /// Keeps `key` beside the current one until the rotation is confirmed.
    func savePending(_ key: Data) throws { keys.withLock { $0.pending = key } }

    /// Makes the pending key the current one.
    func promotePending() throws {
        try keys.withLock {
            guard let pending = $0.pending else { throw ArticleCheckFailed(description: "no pending key") }
            $0 = (pending, nil)
        }
    }

    /// The keys that may open the file: the pending one first.
    func candidateKeys() throws -> [Data] {
        keys.withLock { [$0.pending, $0.current].compactMap { $0 } }
    }

    /// Checks that the key being rotated to is already stored.
    func confirmNewKeyIsStored() throws {
        guard keys.withLock({ $0.pending != nil }) else { throw ArticleCheckFailed(description: "no pending key") }
    }

    /// Drops the old key once the file uses the new one.
    func forgetOldKey() { try? promotePending() }
}

/// Runs the article's blocks in order in `directory`.
func backupAndKeyRotation(in directory: URL) throws {
    let dataKey = randomKey()  // harness
    var options = DatabaseOptions()  // harness
    options.key = .raw(dataKey)  // harness
    let backupURL = directory.appendingPathComponent("backup.db")  // harness
    let offsiteURL = directory.appendingPathComponent("offsite.db")  // harness
    let backupKey = randomKey()  // harness
    do {
        let db = try Database(url: directory.appendingPathComponent("notes.db"), options: options)  // harness
        let connection = try db.newConnection()

        // Same key and cipher settings as the database.
        try connection.backup(to: backupURL)

        // Another key and settings: for example a backup key kept offline.
        try connection.backup(to: offsiteURL, key: .raw(backupKey), cipher: .recommended)

        // In the background, cancellable.
        let progress = connection.asyncBackup(to: backupURL) { error in
            if let error { print("backup failed:", error) }
        }
        // progress.cancel() stops it with DatabaseError.Code.cancelled.
        try connection.read { _ in }  // harness: runs after the queued backup
        try expect(!progress.isCancelled, "the background backup ran")  // harness
    }
    do {  // harness: the backups open with their keys
        var offsite = DatabaseOptions()  // harness
        offsite.key = .raw(backupKey)  // harness
        for (url, options) in [(backupURL, options), (offsiteURL, offsite)] {  // harness
            let copy = try Database(url: url, options: options)  // harness
            try expect(try copy.newConnection().integrityCheck() == ["ok"], "\(url.lastPathComponent) opens")  // harness
        }  // harness
    }  // harness

    let yapDatabaseURL = directory.appendingPathComponent("plain.sqlite")  // harness
    let encryptedURL = directory.appendingPathComponent("encrypted.db")  // harness
    do {  // harness: a plaintext database to encrypt
        var plain = DatabaseOptions()  // harness
        plain.key = nil  // harness
        let plaintext = try Database(url: yapDatabaseURL, options: plain)  // harness
        try plaintext.newConnection().readWrite { tx in try tx.setObject("row", forKey: "k", inCollection: "c") }  // harness
    }  // harness
    _ = Database.waitUntilClosed(yapDatabaseURL)  // harness
    do {
        try Database.encryptPlaintextDatabase(at: yapDatabaseURL, to: encryptedURL, key: .raw(dataKey))
        let db = try Database(url: encryptedURL, options: options)
        let count = try db.newConnection().read { tx in try tx.numberOfKeys(inCollection: "c") }  // harness
        try expect(count == 1, "the encrypted copy holds the plaintext file's row")  // harness
    }

    let keyStore = KeyStore(current: dataKey)  // harness
    let rotatedURL = directory.appendingPathComponent("rotated.db")  // harness
    do {
        let db = try Database(url: rotatedURL, options: options)  // harness
        let newKey = DataKey.random().withUnsafeBytes { Data($0) }
        try keyStore.savePending(newKey)        // persist first: either key must open the file after a crash
        try db.rotateKey(to: .raw(newKey))
        try keyStore.promotePending()           // the old key is no longer needed
        try expect(keyStore.current == newKey, "the key store holds the new key")  // harness
    }
    _ = Database.waitUntilClosed(rotatedURL)  // harness
    do {
        options.key = .candidates { try keyStore.candidateKeys().map { DatabaseKey.raw($0) } }
        options.keyRotationHooks = KeyRotationHooks(
            willReplaceFile: { newKey in try keyStore.confirmNewKeyIsStored() },
            didRotate: { keyStore.forgetOldKey() })
        let db = try Database(url: rotatedURL, options: options)  // harness
        let newerKey = randomKey()  // harness
        try keyStore.savePending(newerKey)  // harness
        try db.rotateKey(to: .raw(newerKey))  // harness
        try expect(keyStore.current == newerKey, "didRotate made the new key current")  // harness
    }
    _ = Database.waitUntilClosed(rotatedURL)  // harness

    do {
        struct Secret: Codable, Sendable { var pin: String }  // harness
        let secrets = CollectionHandle<Secret>("secrets")  // harness
        let keyring = try Keyring(key: DataKey.random(), id: 1)  // harness
        let db = try openDatabase(in: directory, named: "secrets")  // harness
        try db.register(secrets, stages: [.aesGCM(keyring)])  // harness
        let connection = try db.newConnection()  // harness
        try connection.readWrite { tx in  // harness
            for index in 0..<1_200 { try tx.set(Secret(pin: "\(index)"), forKey: "s\(index)", in: secrets) }  // harness
        }  // harness
        try keyring.addKey(DataKey.random(), id: 2)
        try keyring.setCurrent(2)
        try db.reencrypt(collection: "secrets", batchSize: 500) { progress in
            print("\(progress.rewritten) of \(progress.total) rewritten so far")
            return true                                           // false stops; a later call resumes
        }
        try keyring.removeKey(1)
        let last = try connection.read { tx in try tx.object(forKey: "s1199", in: secrets) }  // harness
        try expect(last?.pin == "1199", "the rows read back under key 2")  // harness
    }
}
