import ArgumentParser
import Coffer
import CofferSync
import Foundation
import Logging

/// `coffer-sync device-run` (hidden, for the kill tests): a device in its own process that
/// writes a fixed sequence of operations while its engine syncs, and runs until killed.
///
/// It opens (or creates) a Coffer database, joins the space of an enrollment file the first
/// time, and performs operations `next..<operations` of ``DeviceRunOperation``, each in its own
/// transaction together with the index of the next one (so a restarted run resumes exactly
/// after the last commit). Keys come from the environment, never from argv:
/// `COFFER_SYNC_DATABASE_KEY` (64 hex digits, the raw database key) and
/// `COFFER_SYNC_ENROLLMENT_PASSPHRASE`.
///
/// Standard output, one line per event, each written with `write(2)` before going on:
/// `resume <next>` at start, `ack <index>` after each committed operation, `done` after the
/// last, then `state <rows> <queued> <digest>` every 100 ms (see ``DeviceRunOperation/digest(_:)``).
struct DeviceRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-run",
        abstract: "Write test rows on a synced device until killed (for the kill tests).",
        shouldDisplay: false
    )

    @Option(help: "The Coffer database file.") var database: String
    @Option(help: "The enrollment file to join with, the first time.") var enrollment: String
    @Option(help: "How many operations to perform in all.") var operations = 100
    @Option(help: "Milliseconds to wait between operations.") var intervalMs = 5
    @Option(help: "The engine's poll interval in milliseconds.") var pollMs = 300

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let keyHex = environment["COFFER_SYNC_DATABASE_KEY"], let key = Data(hex: keyHex), key.count == 32
        else {
            throw ValidationError("COFFER_SYNC_DATABASE_KEY must hold the 32-byte database key in hex")
        }
        guard let passphrase = environment["COFFER_SYNC_ENROLLMENT_PASSPHRASE"] else {
            throw ValidationError("COFFER_SYNC_ENROLLMENT_PASSPHRASE must hold the enrollment file's passphrase")
        }
        var options = DatabaseOptions()
        options.key = .raw(key)
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        DeviceRunOperation.register(on: db)
        let replica = try SyncReplica(database: db, collections: [DeviceRunOperation.synced])
        if try replica.credentials() == nil {
            let file = try Data(contentsOf: URL(fileURLWithPath: enrollment))
            try SyncSetup.join(replica: replica, enrollmentFile: file, passphrase: Data(passphrase.utf8))
        }
        var logger = Logger(label: "coffer.sync.device-run")
        logger.logLevel = .warning
        let engine = try SyncEngine(replica: replica, logger: logger, pollInterval: .milliseconds(pollMs))
        await engine.start()

        let connection = try db.newConnection()
        var next = try DeviceRunOperation.next(connection)
        Self.emit("resume \(next)")
        while next < operations {
            try DeviceRunOperation(index: next).commit(connection)
            Self.emit("ack \(next)")
            next += 1
            if intervalMs > 0 { try await Task.sleep(for: .milliseconds(intervalMs)) }
        }
        Self.emit("done")
        while true {
            let rows = try DeviceRunOperation.rows(connection)
            let queued = await engine.currentStatus().queued
            Self.emit("state \(rows.count) \(queued) \(DeviceRunOperation.digest(rows))")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Writes `line` and a newline to standard output at once (unbuffered).
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Operation `index` of a `device-run` child, the same in the child and in the tests' model:
/// every fourth operation deletes the row written two operations before (a tombstone that must
/// never be resurrected); the others write row `c<index>` with value `v<index>`.
struct DeviceRunOperation {
    /// The synced collection the child writes (strings, Coffer's binary Codable format).
    static let collection = "plain"
    /// The child's own, unsynced collection holding the index of the next operation.
    static let progressCollection = "device-run"
    /// The synced collection as the replica declares it.
    static let synced = SyncedCollection.collection(collection, objects: String.self)

    /// The operation's position in the sequence.
    let index: Int

    /// The key this operation writes or deletes.
    var key: String { index % 4 == 3 ? "c\(index - 2)" : "c\(index)" }
    /// The value written, nil for a delete.
    var value: String? { index % 4 == 3 ? nil : "v\(index)" }

    /// Registers the serializers of both collections on `db`.
    static func register(on db: Database) {
        db.registerCodable(String.self, forCollection: collection, format: .binary)
        db.registerCodable(String.self, forCollection: progressCollection, format: .binary)
    }

    /// Performs the operation and records the next one's index, in one transaction.
    func commit(_ connection: Connection) throws {
        try connection.readWrite { tx in
            try tx.setObject(value, forKey: key, inCollection: Self.collection)
            try tx.setObject(String(index + 1), forKey: "next", inCollection: Self.progressCollection)
        }
    }

    /// The index of the next operation stored in the database, 0 at first.
    static func next(_ connection: Connection) throws -> Int {
        try connection.read { tx in
            try tx.object(forKey: "next", inCollection: progressCollection, as: String.self).flatMap { Int($0) } ?? 0
        }
    }

    /// Every row of the synced collection, by key.
    static func rows(_ connection: Connection) throws -> [String: String] {
        try connection.read { tx in
            var rows: [String: String] = [:]
            for key in try tx.allKeys(inCollection: collection) {
                rows[key] = try tx.object(forKey: key, inCollection: collection, as: String.self)
            }
            return rows
        }
    }

    /// A digest of `rows` that two processes compute alike: FNV-1a (64-bit) over the sorted
    /// `key=value` lines, in hex.
    static func digest(_ rows: [String: String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in rows.map({ "\($0.key)=\($0.value)\n" }).sorted() {
            for byte in line.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }
}
