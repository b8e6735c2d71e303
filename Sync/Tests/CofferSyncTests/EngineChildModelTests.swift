import Coffer
import Foundation
import Testing

@testable import CofferSync
@testable import coffer_sync

extension EngineEndToEndTests {
    /// A write to the `plain` collection as the model of the merge rule needs it: when it
    /// happened (the hybrid timestamp its replica recorded) and what it left (nil: a tombstone).
    struct ModelWrite {
        var timestamp: HybridTimestamp
        var value: String?
    }

    /// A child process's random writes and two in-process devices' converge to the model.
    ///
    /// Two devices in this process and one in a child process (`coffer-sync device-run
    /// --random-seed`) set and delete the same keys at random while the TCP proxy between every
    /// device and the server is paused and severed at random. Every committed write, the
    /// child's as it reports them, goes into a model of last-writer-wins by hybrid timestamp
    /// (tombstones included); after quiescence every device, the child too (by its digest while
    /// it runs, then by opening its database), holds exactly the model's rows.
    @Test func randomWritesOfAChildProcessAndInProcessDevicesThroughAFlakyProxyConverge() async throws {
        var random = SplitMix64(state: 2_627)
        let devices = try await space(others: 1, name: "model")
        let file = try await SyncSetup.enrollDevice(
            from: devices[0].replica, passphrase: Data(EngineKillTests.passphrase.utf8), parameters: Self.cheap,
            logger: logger)
        let enrollmentURL = directory.url.appendingPathComponent("model-child.enrollment")
        try file.write(to: enrollmentURL)
        let childDatabase = directory.url.appendingPathComponent("model-child.coffer")
        let keys = 6
        let childOperations = Self.isStress ? 600 : 120
        let parentSteps = Self.isStress ? 800 : 150
        let environment = [
            "COFFER_SYNC_DATABASE_KEY": EngineKillTests.databaseKey.map { String(format: "%02x", $0) }.joined(),
            "COFFER_SYNC_ENROLLMENT_PASSPHRASE": EngineKillTests.passphrase,
        ]
        try await withTCPProxy(to: try admin) { proxy in
            for device in devices { try device.route(through: proxy) }
            let engines = try devices.map { try engine($0, poll: .milliseconds(300)) }
            for engine in engines { await engine.start() }
            let child = try SyncDeviceChild(
                [
                    "device-run", "--database", childDatabase.path, "--enrollment", enrollmentURL.path,
                    "--operations", "\(childOperations)", "--interval-ms", "4", "--poll-ms", "300",
                    "--call-timeout-ms", "3000",
                    "--random-seed", "\(UInt64.random(in: 1...UInt64.max, using: &random))", "--keys", "\(keys)",
                    "--server-host", proxy.host, "--server-port", "\(proxy.port)",
                ],
                environment: environment, logDirectory: directory.url)
            try await child.wait(for: "resume") { $0.last("resume ") != nil }

            var model: [String: ModelWrite] = [:]
            func record(_ write: ModelWrite, _ key: String) {
                if model[key].map({ $0.timestamp < write.timestamp }) ?? true { model[key] = write }
            }
            var step = 0
            let deadline = ContinuousClock.now + .seconds(60)
            // The faults go on until the child has written everything too.
            while step < parentSteps || child.last("done") == nil {
                guard ContinuousClock.now < deadline, child.isRunning else {
                    Issue.record("the child stopped before finishing: \(child.errorOutput)")
                    break
                }
                step += 1
                if try await proxy.randomFault(using: &random) { continue }
                let device = devices[Int.random(in: 0..<devices.count, using: &random)]
                let key = "k\(Int.random(in: 0..<keys, using: &random))"
                let value: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "parent-\(step)"
                if let write = try Self.write(value, key, on: device) { record(write, key) }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<3, using: &random) == 0 ? 5 : 1))
            }
            try await proxy.resume()

            let childWrites = try Self.childWrites(child.lines)
            #expect(childWrites.count == childOperations, "the child reported \(childWrites.count) writes")
            #expect(childWrites.contains { $0 != nil }, "every write of the child was superseded")
            for (key, write) in childWrites.compactMap({ $0 }) { record(write, key) }
            let expected = model.compactMapValues(\.value)
            let digest = DeviceRunOperation.digest(expected)
            try await child.wait(for: "the model's rows (digest \(digest)) with nothing queued", timeout: .seconds(30))
            {
                $0.last("state ").map { $0.hasSuffix(" 0 \(digest)") } ?? false
            }
            #expect(
                try await CofferSyncTests.eventually(timeout: .seconds(30)) {
                    try devices.allSatisfy {
                        try EngineKillTests.plainRows($0.connection) == expected && $0.replica.queuedCount() == 0
                    }
                })
            child.killNow()
            for (device, engine) in zip(devices, engines) {
                #expect(try EngineKillTests.plainRows(device.connection) == expected)
                await engine.stop()
            }
            var options = DatabaseOptions()
            options.key = .raw(EngineKillTests.databaseKey)
            let childDB = try Database(url: childDatabase, options: options)
            childDB.registerCodable(String.self, forCollection: "plain", format: .binary)
            #expect(try EngineKillTests.plainRows(childDB.newConnection()) == expected)
        }
        try await drop(devices[0])
    }

    /// Sets (or with nil deletes) `key` of the `plain` collection on `device`, and returns the
    /// model's record of it (``readBack(_:key:wrote:)``).
    static func write(_ value: String?, _ key: String, on device: TestDevice) throws -> ModelWrite? {
        try device.connection.readWrite { try $0.setObject(value, forKey: key, inCollection: "plain") }
        return try readBack(device, key: key, wrote: value)
    }

    /// The model's record of a write `device` just committed.
    ///
    /// Its key's timestamp, read back only while the row still holds the written value (values
    /// are unique; a delete read back as another device's later delete is the same tombstone,
    /// which that device records too). Nil when a newer remote write replaced it first (it loses to that write anyway).
    static func readBack(_ device: TestDevice, key: String, wrote value: String?) throws -> ModelWrite? {
        let state = try device.replica.rowState(collection: "plain", key: key)
        let current = try device.connection.read {
            try $0.object(forKey: key, inCollection: "plain", as: String.self)
        }
        guard let state, current == value, state.deleted == (value == nil) else { return nil }
        return ModelWrite(timestamp: state.timestamp, value: value)
    }

    /// The child's `write <index> <key> <packed> <clock id> <value or ->` lines, in order; nil
    /// for `write <index> <key> superseded`.
    static func childWrites(_ lines: [String]) throws -> [(String, ModelWrite)?] {
        try lines.filter { $0.hasPrefix("write ") }.map { line in
            let fields = line.split(separator: " ").map(String.init)
            if fields.count == 4, fields[3] == "superseded" { return nil }
            guard fields.count == 6, let packed = UInt64(fields[3]), let clock = UUID(uuidString: fields[4]) else {
                throw SyncDeviceChild.Failure(description: "the child wrote an unreadable line: \(line)")
            }
            let write = ModelWrite(
                timestamp: HybridTimestamp(packed: packed, device: clock), value: fields[5] == "-" ? nil : fields[5])
            return (fields[2], write)
        }
    }
}
