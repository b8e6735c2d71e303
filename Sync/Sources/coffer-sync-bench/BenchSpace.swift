import Coffer
import CofferSync
import Crypto
import Foundation
import Logging

/// The row type the benchmark syncs: about 100 bytes in Coffer's binary Codable format.
struct BenchRow: Codable, Sendable, Equatable {
    /// Which device wrote the row.
    var writer: Int
    /// The row's number on that device.
    var number: Int
    /// Filler text.
    var text: String
}

/// One device of the benchmark's space: its own encrypted database, replica and engine.
final class BenchDevice: Sendable {
    /// The synced collection's name.
    static let collection = "bench"
    /// The device's database (in the benchmark's temporary directory).
    let database: Database
    /// The database's sync side.
    let replica: SyncReplica
    /// A connection for the benchmark's own reads and writes.
    let connection: Connection
    /// The device's engine (not started until a workload starts it).
    let engine: SyncEngine

    /// Opens a new database at `url` and prepares it for syncing; `join` stores credentials
    /// before the engine is made.
    init(url: URL, logger: Logger, pollInterval: Duration, join: (SyncReplica) async throws -> Void) async throws {
        var options = DatabaseOptions()
        options.key = .raw(Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
        database = try Database(url: url, options: options)
        database.registerCodable(BenchRow.self, forCollection: Self.collection, format: .binary)
        replica = try SyncReplica(
            database: database, collections: [.collection(Self.collection, objects: BenchRow.self)])
        connection = try database.newConnection()
        try await join(replica)
        engine = try SyncEngine(replica: replica, logger: logger, pollInterval: pollInterval)
    }

    /// Writes `count` rows numbered from `first`, `perTransaction` per transaction.
    func write(writer: Int, first: Int, count: Int, perTransaction: Int = 1) throws {
        var next = first
        while next < first + count {
            let end = min(next + perTransaction, first + count)
            try connection.readWrite { tx in
                for number in next..<end {
                    try tx.setObject(
                        BenchRow(writer: writer, number: number, text: BenchDevice.filler),
                        forKey: BenchDevice.key(writer: writer, number: number), inCollection: Self.collection)
                }
            }
            next = end
        }
    }

    /// Whether the row exists in this device's database.
    func has(writer: Int, number: Int) throws -> Bool {
        try connection.read { tx in
            try tx.object(
                forKey: BenchDevice.key(writer: writer, number: number), inCollection: Self.collection,
                as: BenchRow.self) != nil
        }
    }

    /// The number of rows in the synced collection.
    func count() throws -> Int {
        try connection.read { try $0.numberOfKeys(inCollection: Self.collection) }
    }

    /// The key of a row.
    static func key(writer: Int, number: Int) -> String { "w\(writer)-\(number)" }

    /// Filler that makes a row about 100 bytes.
    static let filler = String(repeating: "coffer sync bench ", count: 4)
}

/// The benchmark's space on the server and its devices' temporary directory; ``tearDown()``
/// stops the engines, closes the databases, drops the space and removes the directory.
final class BenchSpace: @unchecked Sendable {
    let admin: SyncServerAddress
    let logger: Logger
    let directory: URL
    private var first: BenchDevice?
    private var devices: [BenchDevice] = []
    private var spaceID: UUID?

    /// Makes the temporary directory; the space is created with the first device.
    init(admin: SyncServerAddress, logger: Logger) throws {
        self.admin = admin
        self.logger = logger
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "coffer-sync-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A new device of the space (the first one creates it), with an empty database and an
    /// engine polling every `pollInterval` when no notification arrives.
    func newDevice(pollInterval: Duration = .seconds(30)) async throws -> BenchDevice {
        let url = directory.appendingPathComponent("device-\(devices.count).coffer")
        let logger = logger
        let device: BenchDevice
        if let first {
            let passphrase = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
            let file = try await SyncSetup.enrollDevice(
                from: first.replica, passphrase: passphrase, parameters: .scrypt(n: 1 << 10, r: 8, p: 1),
                logger: logger)
            device = try await BenchDevice(url: url, logger: logger, pollInterval: pollInterval) { replica in
                try SyncSetup.join(replica: replica, enrollmentFile: file, passphrase: passphrase)
            }
        } else {
            let admin = admin
            var created: UUID?
            device = try await BenchDevice(url: url, logger: logger, pollInterval: pollInterval) { replica in
                created = try await SyncSetup.createSpace(replica: replica, admin: admin, logger: logger).spaceID
            }
            spaceID = created
            first = device
        }
        devices.append(device)
        return device
    }

    /// Stops every engine, closes every database, drops the space and removes the directory.
    func tearDown() async {
        for device in devices {
            await device.engine.stop()
            try? await device.database.close(timeout: .seconds(10))
        }
        devices.removeAll()
        first = nil
        if let spaceID {
            do {
                try await SyncServerAdmin(address: admin, logger: logger).dropSpace(spaceID: spaceID)
            } catch {
                print("# warning: could not drop space \(spaceID.uuidString): \(error.localizedDescription)")
            }
        }
        spaceID = nil
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Waits until `condition` holds, checking every `interval`; false at `timeout`.
func waitUntil(
    timeout: Duration, interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}

/// A benchmark failure, with a message for the user.
struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}
