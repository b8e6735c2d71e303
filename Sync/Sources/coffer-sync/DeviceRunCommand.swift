import ArgumentParser
import Coffer
import CofferSync
import Foundation
import Logging

/// `coffer-sync device-run` (hidden, for the kill and model tests): a device in its own process
/// that writes a sequence of operations while its engine syncs, and runs until killed.
///
/// It opens (or creates) a Coffer database, joins the space of an enrollment file the first
/// time, and performs operations `next..<operations` of ``DeviceRunOperation`` (a fixed
/// sequence, or with `--random-seed` sets and deletes of `--keys` shared keys drawn from the
/// seed), each in its own transaction together with the index of the next one (so a restarted
/// run resumes exactly after the last commit). Keys come from the environment, never from argv:
/// `COFFER_SYNC_DATABASE_KEY` (64 hex digits, the raw database key) and
/// `COFFER_SYNC_ENROLLMENT_PASSPHRASE`.
///
/// Standard output, one line per event, each written with `write(2)` before going on:
/// `resume <next>` at start, `ack <index>` after each committed operation, `done` after the
/// last, then `state <rows> <queued> <digest>` every 100 ms (see ``DeviceRunOperation/digest(_:)``).
/// In random mode each `ack` follows a `write <index> <key> <hlc> <clock id> <value or ->` line
/// giving the write's hybrid timestamp as the replica recorded it (`packed` and the clock id),
/// or `write <index> <key> superseded` when a newer remote write replaced it before it could be
/// read back (it then loses to that write under last-writer-wins anyway).
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
    @Option(help: "How long one server call may take, in milliseconds.") var callTimeoutMs = 30_000
    @Option(help: "Random operations drawn from this seed instead of the fixed sequence.") var randomSeed: UInt64?
    @Option(help: "How many keys (k0, k1, …) random operations choose from.") var keys = 6
    @Option(help: "Sync through this host instead of the enrollment's (a test proxy).") var serverHost: String?
    @Option(help: "Sync through this port instead of the enrollment's (a test proxy).") var serverPort: Int?

    func validate() throws {
        guard operations >= 0, intervalMs >= 0, pollMs > 0, callTimeoutMs > 0 else {
            throw ValidationError(
                "--operations and --interval-ms must not be negative, --poll-ms and --call-timeout-ms must be positive")
        }
        guard (1...1_000).contains(keys) else { throw ValidationError("--keys must be 1 to 1000") }
        if let serverPort, !(1...65_535).contains(serverPort) {
            throw ValidationError("--server-port must be 1 to 65535")
        }
    }

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
        if serverHost != nil || serverPort != nil, var credentials = try replica.credentials() {
            credentials.host = serverHost ?? credentials.host
            credentials.port = serverPort ?? credentials.port
            try replica.storeCredentials(credentials)
        }
        var logger = Logger(label: "coffer.sync.device-run")
        logger.logLevel = .warning
        let engine = try SyncEngine(
            replica: replica, logger: logger, pollInterval: .milliseconds(pollMs),
            callTimeout: .milliseconds(callTimeoutMs))
        await engine.start()

        let connection = try db.newConnection()
        var next = try DeviceRunOperation.next(connection)
        Self.emit("resume \(next)")
        while next < operations {
            let operation =
                randomSeed.map { DeviceRunOperation(index: next, seed: $0, keys: keys) }
                ?? DeviceRunOperation(index: next)
            try operation.commit(connection)
            if randomSeed != nil { Self.emit(try operation.report(connection, replica: replica)) }
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

/// Operation `index` of a `device-run` child, the same in the child and in the tests' model.
///
/// Every fourth operation deletes the row written two operations before (a tombstone that must
/// never be resurrected); the others write row `c<index>` with value `v<index>`. In random mode
/// (a seed), operation `index` draws a key `k<n>` of `keys` and deletes it one time in four,
/// else writes `child-<index>` (unique, so a read-back tells this write from another's).
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
    let key: String
    /// The value written, nil for a delete.
    let value: String?

    /// Operation `index` of the fixed sequence.
    init(index: Int) {
        self.index = index
        key = index % 4 == 3 ? "c\(index - 2)" : "c\(index)"
        value = index % 4 == 3 ? nil : "v\(index)"
    }

    /// Operation `index` of the random sequence of `seed`: drawn from the seed and the index
    /// alone, so that a restarted run draws the same operation again.
    init(index: Int, seed: UInt64, keys: Int) {
        var random = SplitMix64(state: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
        self.index = index
        key = "k\(Int.random(in: 0..<max(keys, 1), using: &random))"
        value = Int.random(in: 0..<4, using: &random) == 0 ? nil : "child-\(index)"
    }

    /// The `write …` line of a committed random operation: its key's hybrid timestamp as the
    /// replica recorded it, read back only while the row still holds this operation's value.
    func report(_ connection: Connection, replica: SyncReplica) throws -> String {
        let state = try replica.rowState(collection: Self.collection, key: key)
        let current = try connection.read { try $0.object(forKey: key, inCollection: Self.collection, as: String.self) }
        // Values are unique, so an equal value after the state was read means the state is
        // this write's (a delete's read-back may be another device's later delete: the same
        // tombstone, reported with that delete's timestamp, which its writer reports too).
        guard let state, current == value, state.deleted == (value == nil) else {
            return "write \(index) \(key) superseded"
        }
        let stamp = state.timestamp
        return "write \(index) \(key) \(stamp.packed) \(stamp.device.uuidString) \(value ?? "-")"
    }

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

/// SplitMix64: a small seeded generator whose sequence is the same on every platform.
struct SplitMix64: RandomNumberGenerator {
    /// The generator's whole state.
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
