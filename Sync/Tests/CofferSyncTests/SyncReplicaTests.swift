import Coffer
import Foundation
import Testing

@testable import CofferSync
@testable import coffer_sync

/// Capture, remote apply and uploads of ``SyncReplica`` between devices exchanging sealed rows
/// through a ``RowRelay`` (no engine, no server): merge, tombstones, echo, rollback, tampering,
/// random runs.
@Suite final class SyncReplicaTests {
    let directory: SyncTestDirectory
    let key = SyncKey.random(epoch: 1)
    let space = UUID()
    let relay = RowRelay()

    init() throws { directory = try SyncTestDirectory() }

    func device(_ name: String, merge: SyncMergeHandler? = nil) throws -> TestDevice {
        try TestDevice(directory: directory.url, name: name, key: key, space: space, merge: merge)
    }

    @Test func localWritesAreCapturedAndQueued() throws {
        let a = try device("a")
        try a.set("one", "k1", tag: "t")
        try a.set("two", "k1")
        try a.connection.readWrite { tx in try tx.setObject("p", forKey: "x", inCollection: "plain") }
        try a.connection.readWrite { tx in try tx.setObject("not synced", forKey: "y", inCollection: "other") }
        #expect(try a.replica.queuedCount() == 3)
        let state = try #require(try a.replica.rowState(collection: "notes", key: "k1"))
        #expect(state.pending && !state.deleted && state.version == 0)
        #expect(try a.replica.rowState(collection: "other", key: "y") == nil)
        let batch = try a.replica.prepareUploads(sealer: a.sealer, deviceID: a.deviceID)
        #expect(batch.uploads.count == 2)
        #expect(batch.uploads.allSatisfy { $0.baseVersion == 0 && $0.row.version == 1 })
        #expect(try a.upload(to: relay).isEmpty)
        #expect(try a.replica.queuedCount() == 0)
        let settled = try #require(try a.replica.rowState(collection: "notes", key: "k1"))
        #expect(!settled.pending && settled.version == 1)
    }

    /// The engine seals many rows per read of the queue and pushes them a batch at a time:
    /// the cut keeps the order, and the operations needing no upload go with the first batch.
    @Test func aPreparedRoundIsCutIntoPushesInOrder() throws {
        let a = try device("a")
        for index in 0..<23 { try a.set("v\(index)", "k\(index)") }
        let prepared = try a.replica.prepareUploads(sealer: a.sealer, deviceID: a.deviceID, limit: 100)
        let batches = prepared.chunked(10)
        #expect(batches.map(\.uploads.count) == [10, 10, 3])
        #expect(batches.flatMap(\.uploads).map(\.key) == prepared.uploads.map(\.key))
        #expect(batches.dropFirst().filter { !$0.settled.isEmpty }.isEmpty)
        #expect(batches[0].settled == prepared.settled)
        #expect(prepared.chunked(100).count == 1)
        for batch in batches {
            let outcomes = relay.push(batch)
            _ = try a.replica.finish(batch, outcomes: outcomes, sealer: a.sealer)
        }
        #expect(try a.replica.queuedCount() == 0)
        #expect(relay.allRows.count == 23)
    }

    /// Large rows cut a round by bytes too: a read of the queue stops sealing once it holds
    /// `byteLimit` bytes (the rest stay queued), and a push takes no row past `bytes` unless it
    /// is the push's first, so one row larger than the budget still goes, alone.
    @Test func aRoundOfLargeRowsIsCutByBytes() throws {
        let a = try device("a")
        let sizes = [3_000, 100, 5_000, 100, 100, 4_000, 100]
        for (index, size) in sizes.enumerated() { try a.set(String(repeating: "x", count: size), "k\(index)") }
        let first = try a.replica.prepareUploads(sealer: a.sealer, deviceID: a.deviceID, limit: 100, byteLimit: 8_000)
        #expect(first.uploads.map(\.key) == ["k0", "k1", "k2"], "sealing stops once 8,000 bytes are sealed")
        let batches = first.chunked(100, bytes: 3_500)
        #expect(batches.map { $0.uploads.map(\.key) } == [["k0", "k1"], ["k2"]])
        #expect(
            batches.allSatisfy { $0.uploads.count == 1 || $0.uploads.map(\.row.ciphertext.count).reduce(0, +) <= 3_500 }
        )
        for batch in batches { _ = try a.replica.finish(batch, outcomes: relay.push(batch), sealer: a.sealer) }
        #expect(try a.replica.queuedCount() == 4, "the rows left out stay queued")
        #expect(try a.upload(to: relay).isEmpty)
        #expect(try a.replica.queuedCount() == 0)
        #expect(relay.allRows.count == sizes.count)
        #expect(UploadBatch(uploads: [], settled: []).chunked(10, bytes: 10).count == 1)
    }

    @Test func rowWrittenOnAAppearsOnBWithMetadata() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("hello", "k1", tag: "red")
        try a.connection.readWrite { tx in try tx.setObject("plain value", forKey: "p", inCollection: "plain") }
        _ = try a.upload(to: relay)
        let report = try b.pull(from: relay)
        #expect(report.applied == 2 && report.rejected.isEmpty)
        #expect(try b.note("k1") == Note(text: "hello"))
        #expect(
            try b.connection.read { try $0.metadata(forKey: "k1", inCollection: "notes", as: Tag.self) }
                == Tag(label: "red"))
        #expect(
            try b.connection.read { try $0.object(forKey: "p", inCollection: "plain", as: String.self) }
                == "plain value")
        #expect(try b.replica.cursor() == 2)
    }

    @Test func remoteApplyIsNotEchoed() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("hello", "k1")
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        #expect(try b.replica.queuedCount() == 0)
        let batch = try b.replica.prepareUploads(sealer: b.sealer, deviceID: b.deviceID)
        #expect(batch.isEmpty)
        // Pulling A's own row back is a no-op.
        let again = try a.pull(from: relay)
        #expect(again.applied == 0 && again.skipped == 1)
    }

    @Test func deletesPropagateAsTombstones() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("hello", "k1")
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        try b.set(nil, "k1")
        _ = try b.upload(to: relay)
        try a.pull(from: relay)
        #expect(try a.note("k1") == nil)
        let state = try #require(try a.replica.rowState(collection: "notes", key: "k1"))
        #expect(state.deleted && state.version == 2 && !state.pending)
        #expect(relay.allRows.count == 1 && relay.allRows[0].row.deleted)
    }

    @Test func removeAllInACollectionIsCapturedRowByRow() throws {
        let a = try device("a")
        let b = try device("b")
        for key in ["k1", "k2", "k3"] { try a.set(key, key) }
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        try a.connection.readWrite { tx in try tx.removeAllObjects(inCollection: "notes") }
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        #expect(try b.notes().isEmpty)
    }

    @Test func removingEveryCollectionKeepsSyncStateAndSendsTombstones() throws {
        let a = try device("a")
        let b = try device("b")
        for key in ["k1", "k2"] { try a.set(key, key) }
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        let credentials = SyncDeviceCredentials(
            spaceID: space, deviceID: a.deviceID, syncKey: key, deviceKey: .generate(), host: "h", port: 1,
            database: "d", username: "u", password: "p", requiresTLS: false)
        try a.replica.storeCredentials(credentials)
        let cursor = try a.replica.cursor()
        try a.connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        #expect(try a.replica.credentials()?.username == "u")
        #expect(try a.replica.cursor() == cursor)
        #expect(try a.replica.rowState(collection: "notes", key: "k1")?.deleted == true)
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        #expect(try b.notes().isEmpty)
    }

    @Test func concurrentEditsConvergeByLastWriter() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("base", "k1")
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        try a.set("from a", "k1")
        Thread.sleep(forTimeInterval: 0.005)
        try b.set("from b", "k1")  // later by the clock: wins
        _ = try a.upload(to: relay)
        _ = try b.upload(to: relay)  // conflicts, merges (keeps its own), retries
        try a.pull(from: relay)
        try b.pull(from: relay)
        #expect(try a.note("k1") == Note(text: "from b"))
        #expect(try b.note("k1") == Note(text: "from b"))

        try b.set("b again", "k1")
        Thread.sleep(forTimeInterval: 0.005)
        try a.set("a last", "k1")  // later: wins even though B pushes first
        _ = try b.upload(to: relay)
        _ = try a.upload(to: relay)
        try a.pull(from: relay)
        try b.pull(from: relay)
        #expect(try a.note("k1") == Note(text: "a last"))
        #expect(try b.note("k1") == Note(text: "a last"))
    }

    @Test func anEarlierWriteNeverResurrectsATombstone() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("base", "k1")
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        try b.set("edit", "k1")  // earlier
        Thread.sleep(forTimeInterval: 0.005)
        try a.set(nil, "k1")  // later delete
        _ = try a.upload(to: relay)
        _ = try b.upload(to: relay)
        try a.pull(from: relay)
        try b.pull(from: relay)
        #expect(try a.note("k1") == nil && b.note("k1") == nil)
        try b.set("resurrected by a later write", "k1")
        _ = try b.upload(to: relay)
        try a.pull(from: relay)
        #expect(try a.note("k1") == Note(text: "resurrected by a later write"))
    }

    @Test func customMergeHandlerWritesAMergedValue() throws {
        let concatenate: SyncMergeHandler = { conflict in
            let local = (conflict.local?.object as? Note)?.text ?? ""
            let remote = (conflict.remote?.object as? Note)?.text ?? ""
            return .write(SyncValue(object: Note(text: [local, remote].sorted().joined(separator: "+"))))
        }
        let a = try device("a", merge: concatenate)
        let b = try device("b", merge: concatenate)
        try a.set("x", "k1")
        try b.set("y", "k1")
        _ = try a.upload(to: relay)
        _ = try b.upload(to: relay)
        try a.pull(from: relay)
        try b.pull(from: relay)
        #expect(try a.note("k1") == Note(text: "x+y"))
        #expect(try b.note("k1") == Note(text: "x+y"))
    }

    @Test func olderVersionIsRollbackAndNotApplied() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("v1", "k1")
        _ = try a.upload(to: relay)
        let first = relay.allRows[0]
        try a.set("v2", "k1")
        _ = try a.upload(to: relay)
        try b.pull(from: relay)
        let report = try b.replica.apply([PulledRow(row: first.row, sequence: 99)], sealer: b.sealer)
        #expect(report.rejected == [.rollbackDetected(rowID: first.row.rowID.description, held: 2, served: 1)])
        #expect(try b.note("k1") == Note(text: "v2"))
    }

    @Test func tamperedRowsAreReportedNotApplied() throws {
        let a = try device("a")
        let b = try device("b")
        try a.set("one", "k1")
        try a.set("two", "k2")
        _ = try a.upload(to: relay)
        let rows = relay.allRows.sorted { $0.sequence < $1.sequence }
        relay.tamper(rows[0].row.rowID) { $0.row.ciphertext[$0.row.ciphertext.startIndex + 20] ^= 1 }
        relay.tamper(rows[1].row.rowID) { $0.row.ciphertext = rows[0].row.ciphertext }
        let report = try b.pull(from: relay)
        #expect(report.applied == 0 && report.rejected.count == 2)
        #expect(try b.notes().isEmpty)
        #expect(try b.replica.cursor() == 4)
    }

    @Test func rowsOfALaterEpochStopTheApplyUntilTheKeyIsAdopted() throws {
        let a = try device("a")
        let b = try device("b")
        let next = SyncKey.random(epoch: 2)
        let later = RowSealer(syncKey: next, spaceID: space)
        let record = RowRecord(
            collection: "notes", key: "k1", object: try BinaryEncoder().encode(Note(text: "new epoch")), metadata: nil,
            timestamp: a.replica.clock.now())
        let row = PulledRow(row: try later.seal(record, version: 1, deviceID: a.deviceID), sequence: 1)
        #expect(throws: SyncError.keyEpochChanged(space: space, expected: 1, current: 2)) {
            try b.replica.apply([row], sealer: b.sealer)
        }
        #expect(try b.replica.cursor() == 0)
        #expect(try b.replica.apply([row], sealer: later).applied == 1)
        #expect(try b.note("k1") == Note(text: "new epoch"))
    }

    @Test func rowsOfOtherTypesAreReportedNotApplied() throws {
        let b = try device("b")
        let record = RowRecord(
            collection: "notes", key: "k1", object: try BinaryEncoder().encode(42), metadata: nil,
            timestamp: b.replica.clock.now())
        let row = PulledRow(row: try b.sealer.seal(record, version: 1, deviceID: UUID()), sequence: 1)
        let report = try b.replica.apply([row], sealer: b.sealer)
        #expect(report.rejected == [.undecodableRow(rowID: row.row.rowID.description)])
        #expect(try b.note("k1") == nil)
        #expect(try b.replica.cursor() == 1)
    }

    @Test func rowsWrittenBeforeSyncAreQueuedOnce() throws {
        var options = DatabaseOptions()
        options.key = .raw(Data(repeating: 0x42, count: 32))
        let url = directory.url.appendingPathComponent("pre.coffer")
        do {
            let database = try Database(url: url, options: options)
            database.registerCodable(Note.self, metadata: Tag.self, forCollection: "notes")
            try database.newConnection().readWrite { tx in
                try tx.setObject(Note(text: "old"), forKey: "k0", inCollection: "notes")
            }
            let replica = try SyncReplica(database: database, collections: TestDevice.collections)
            #expect(try replica.queuedCount() == 1)
            try database.close()
        }
        let database = try Database(url: url, options: options)
        database.registerCodable(Note.self, metadata: Tag.self, forCollection: "notes")
        let replica = try SyncReplica(database: database, collections: TestDevice.collections)
        #expect(try replica.queuedCount() == 1)
        #expect(try replica.rowState(collection: "notes", key: "k0")?.pending == true)
    }

    /// Devices doing random writes, deletes, uploads and pulls converge on the write with the
    /// latest timestamp per key (the model), with nothing lost and no tombstone resurrected.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func randomRunsConvergeOnTheModel(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let devices = try (0..<3).map { try device("d\($0)") }
        let keys = ["a", "b", "c", "d"]
        var model: [String: (timestamp: HybridTimestamp, text: String?)] = [:]
        for step in 0..<120 {
            let device = devices[Int.random(in: 0..<devices.count, using: &random)]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                let text: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "s\(seed)-\(step)"
                try device.set(text, key)
                if let state = try device.replica.rowState(collection: "notes", key: key),
                    model[key].map({ $0.timestamp < state.timestamp }) ?? true
                {
                    model[key] = (state.timestamp, text)
                }
            case 5..<8: _ = try device.upload(to: relay)
            default: try device.pull(from: relay)
            }
        }
        for _ in 0..<2 {
            for device in devices {
                #expect(try device.upload(to: relay).isEmpty)
                try device.pull(from: relay)
            }
        }
        let expected = model.compactMapValues(\.text)
        for device in devices {
            #expect(try device.notes() == expected)
            #expect(try device.replica.queuedCount() == 0)
        }
    }
}
