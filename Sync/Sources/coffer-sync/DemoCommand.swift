import ArgumentParser
import Coffer
import CofferSync
import Foundation
import Logging

/// A note, the value type of the demo's synced collection.
struct Note: Codable, Sendable, Equatable {
    var title: String
    var body: String
}

/// The demo's synced collection.
let notes = CollectionHandle<Note>("notes")

/// `coffer-sync demo`: two new device databases syncing through a PostgreSQL server.
///
/// The CofferSync Getting Started article quotes its code from this file, and CI runs the
/// command against a throwaway server (scripts/ci/sync.sh), so the article's code is compiled
/// and run. It prints what each step did: a new space, a second device enrolled, a note
/// propagated, an offline edit meeting a later one, a delete, status, and a revocation.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Sync two new device databases through the server and show each step.",
        discussion: """
            Needs a server prepared with `coffer-sync init-server` and its admin role \
            (`bash Sync/scripts/dev.sh demo` starts a throwaway one). The space it creates is \
            dropped at the end, and the databases removed, unless --keep is given.
            """
    )

    @OptionGroup var adminOptions: AdminOptions
    @Option(help: "Where to create the two databases (default: a new temporary directory).")
    var directory: String?
    @Flag(help: "Keep the databases and the space on the server.") var keep = false

    func run() async throws {
        let admin = try adminOptions.address()
        let folder = directory.map { URL(fileURLWithPath: $0) } ?? Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if directory == nil && !keep { try? FileManager.default.removeItem(at: folder) } }
        var logger = Logger(label: "coffer.sync.demo")
        logger.logLevel = .warning
        print("coffer-sync demo — two devices syncing through PostgreSQL at \(admin.server)")
        print("Directory: \(folder.path) (laptop.db, desktop.db)")

        let laptop = try DemoDevice(url: folder.appendingPathComponent("laptop.db"))
        let desktop = try DemoDevice(url: folder.appendingPathComponent("desktop.db"))
        let replica = laptop.replica
        let credentials = try await SyncSetup.createSpace(replica: replica, admin: admin, logger: logger)
        print("Space:     \(credentials.spaceID.uuidString), created with the laptop as its first device")
        do {
            try await Self.steps(laptop: laptop, desktop: desktop, logger: logger)
        } catch {
            try? await SyncServerAdmin(address: admin, logger: logger).dropSpace(spaceID: credentials.spaceID)
            throw error
        }
        try await laptop.database.close()
        try await desktop.database.close()
        if keep {
            print("Kept:      the databases in \(folder.path) and the space on the server")
        } else {
            try await SyncServerAdmin(address: admin, logger: logger).dropSpace(spaceID: credentials.spaceID)
            print("Dropped:   the space and its device roles")
        }
    }

    /// Everything after the space exists: enroll, sync, edit offline, delete, revoke.
    static func steps(laptop: DemoDevice, desktop: DemoDevice, logger: Logger) async throws {
        let replica = laptop.replica
        // On the laptop: an enrollment file for the desktop, sealed under a passphrase.
        let passphrase = Data("correct horse battery staple".utf8)
        let file = try await SyncSetup.enrollDevice(
            from: replica, passphrase: passphrase, parameters: demoKDF, logger: logger)
        // On the desktop, with the file and the passphrase:
        let joined = try SyncSetup.join(replica: desktop.replica, enrollmentFile: file, passphrase: passphrase)
        print("Enrolled:  the desktop, as device \(joined.deviceID.uuidString) (a \(file.count)-byte enrollment file)")

        let engine = try SyncEngine(replica: replica, logger: logger, pollInterval: .seconds(2))
        await engine.start()
        let desktopEngine = try SyncEngine(replica: desktop.replica, logger: logger, pollInterval: .seconds(2))
        await desktopEngine.start()

        let wifi = Note(title: "Wi-Fi", body: "on the fridge")
        let started = ContinuousClock.now
        try laptop.write(wifi, "n1")
        try await desktop.waitFor("n1", toBe: wifi)
        print("Laptop:    wrote n1 → on the desktop after \(milliseconds(ContinuousClock.now - started)) ms")
        let keys = Note(title: "Keys", body: "hook by the door")
        try laptop.write(keys, "n2")
        try await desktop.waitFor("n2", toBe: keys)

        // The desktop goes offline and edits n1; the laptop edits it later. After the desktop
        // reconnects, both hold the later write (last writer wins by the hybrid logical clock).
        await desktopEngine.stop()
        try desktop.write(Note(title: "Wi-Fi", body: "the desktop's edit, made offline"), "n1")
        try await Task.sleep(for: .milliseconds(5))
        let later = Note(title: "Wi-Fi", body: "the laptop's later edit")
        try laptop.write(later, "n1")
        try await engine.syncNow()
        let queuedOffline = try desktop.replica.queuedCount()
        await desktopEngine.start()
        try await desktopEngine.syncNow()
        try await desktop.waitFor("n1", toBe: later)
        try await laptop.waitFor("n1", toBe: later)
        print("Offline:   the desktop queued \(queuedOffline) edit offline; reconnected, both hold \"\(later.body)\"")

        try desktop.write(nil, "n2")
        try await desktopEngine.syncNow()
        try await laptop.waitFor("n2", toBe: nil)
        print("Deleted:   n2 on the desktop → gone on the laptop (the server keeps a tombstone)")

        for (name, engine) in [("laptop", engine), ("desktop", desktopEngine)] {
            let status = await engine.currentStatus()
            print(
                "Status:    \(name): \(status.phase), \(status.queued) queued, cursor \(status.cursor) of "
                    + "\(status.serverSequence), \(status.rejectedRows) rows rejected, last error: "
                    + (status.lastError?.localizedDescription ?? "none"))
        }

        // The desktop is lost: the laptop revokes it, which rotates the space's sync key.
        try await SyncSetup.revokeDevice(joined.deviceID, from: replica, logger: logger)
        let alarm = Note(title: "Alarm", body: "the new code")
        try laptop.write(alarm, "n3")
        try await engine.syncNow()
        let epoch = try replica.credentials()?.syncKey.epoch ?? 0
        print("Revoked:   the desktop; the laptop's sync key is now at epoch \(epoch)")
        do {
            try await desktopEngine.syncNow()
            throw SyncError.misuse("the revoked desktop still synced")
        } catch let error as SyncError {
            print("           the desktop's next sync: \(error.localizedDescription)")
        }
        print("           n3 on the desktop: \(try desktop.read("n3") == nil ? "absent" : "PRESENT")")
        await engine.stop()
        await desktopEngine.stop()
        guard try desktop.read("n3") == nil else { throw SyncError.misuse("the revoked desktop received n3") }
    }

    /// Cheap scrypt parameters for the demo's throwaway enrollment file; real ones keep the default.
    static let demoKDF = KeyFile.KDFParameters.scrypt(n: 1 << 12, r: 8, p: 1)

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("coffer-sync-demo-\(UUID().uuidString)")
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

/// One of the demo's devices: a new database under a random key, and its replica.
struct DemoDevice {
    let database: Database
    let replica: SyncReplica
    let connection: Connection

    init(url: URL) throws {
        let dataKey = DataKey.random().withUnsafeBytes { Data($0) }
        var options = DatabaseOptions()
        options.key = .raw(dataKey)
        let db = try Database(url: url, options: options)
        try db.register(notes)  // registered as usual: add stages: [.zlib()] etc.
        let replica = try SyncReplica(database: db, collections: [.collection(notes)])
        database = db
        self.replica = replica
        connection = try db.newConnection()
    }

    /// Writes `note` under `key`, or deletes the row when `note` is nil.
    func write(_ note: Note?, _ key: String) throws {
        try connection.readWrite { tx in
            if let note {
                try tx.set(note, forKey: key, in: notes)
            } else {
                try tx.removeObject(forKey: key, in: notes)
            }
        }
    }

    func read(_ key: String) throws -> Note? {
        try connection.read { tx in try tx.object(forKey: key, in: notes) }
    }

    /// Waits, at most 10 s, until the note under `key` is `expected`.
    func waitFor(_ key: String, toBe expected: Note?) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try read(key) != expected {
            guard ContinuousClock.now < deadline else {
                throw SyncError.misuse("the demo's note \(key) did not arrive within 10 s")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
