import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Snapshot isolation across connections.
///
/// Commits become visible to the next transaction, never in the middle of one. Concurrency is ordered with semaphores, every wait bounded.
@Suite struct SnapshotTests {
    @Test(arguments: TestKeyKind.allCases)
    func alternatingWritersSeeEachOthersCommits(kind: TestKeyKind) throws {
        let test = try TestDatabase(kind)
        let c1 = try test.connection()
        let c2 = try test.connection()
        for round in 0..<12 {
            let (writer, reader) = round.isMultiple(of: 2) ? (c1, c2) : (c2, c1)
            try writer.readWrite { tx in
                let counter = try tx.object(forKey: "counter", inCollection: nil, as: Int.self) ?? 0
                try tx.setObject(counter + 1, forKey: "counter", inCollection: nil)
                try tx.setObject(round, forKey: "r\(round)", inCollection: "rounds")
            }
            try reader.read { tx throws in
                #expect(try tx.object(forKey: "counter", inCollection: nil, as: Int.self) == round + 1)
                #expect(try tx.numberOfKeys(inCollection: "rounds") == round + 1)
                #expect(tx.snapshot == UInt64(round + 1))
            }
        }
        #expect(test.database.snapshot == 12)
        #expect(c1.snapshot == 12 && c2.snapshot == 12)
    }

    @Test(arguments: [true, false])
    func readerKeepsItsSnapshotForItsWholeDuration(cacheEnabled: Bool) throws {
        let test = try TestDatabase()
        let config = ConnectionConfig(objectCacheEnabled: cacheEnabled, metadataCacheEnabled: cacheEnabled)
        let writer = try test.connection(config: config)
        let reader = try test.connection(config: config)
        try writer.readWrite { tx in
            try tx.setObject("old", forKey: "v", inCollection: nil, withMetadata: "old-meta")
            try tx.setObject("stays", forKey: "other", inCollection: nil)
        }
        // Warm the reader's cache with the old value.
        _ = try reader.read { tx in try tx.object(forKey: "v", inCollection: nil, as: String.self) }

        let began = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let observations = Locked<[String]>([])
        reader.asyncRead(
            { tx in
                func observe(_ label: String) throws {
                    let value = try tx.object(forKey: "v", inCollection: nil, as: String.self) ?? "nil"
                    let metadata = try tx.metadata(forKey: "v", inCollection: nil, as: String.self) ?? "nil"
                    let added = try tx.hasObject(forKey: "added", inCollection: nil)
                    let count = try tx.numberOfKeysInAllCollections()
                    var keys: [String] = []
                    try tx.enumerateKeys(inCollection: nil) { key, _ in keys.append(key) }
                    observations.append(
                        "\(label):\(value):\(metadata):\(added):\(count):\(keys.sorted().joined(separator: ",")):\(tx.snapshot)"
                            + ":\(tx.connection.snapshot)")
                }
                try observe("before")
                began.signal()
                guard TestSupport.wait(committed) else { return }
                try observe("after")
            }, completion: { _ in finished.signal() })

        #expect(TestSupport.wait(began))
        try writer.readWrite { tx in
            try tx.setObject("new", forKey: "v", inCollection: nil, withMetadata: "new-meta")
            try tx.setObject("x", forKey: "added", inCollection: nil)
        }
        #expect(test.database.snapshot == 2)
        // While the read is open, the reader connection still reports the snapshot it reads.
        #expect(reader.snapshot == 1)
        committed.signal()
        #expect(TestSupport.wait(finished))
        #expect(
            observations.value == [
                "before:old:old-meta:false:2:other,v:1:1",
                "after:old:old-meta:false:2:other,v:1:1",
            ])
        // The next transaction sees the commit.
        try reader.read { tx throws in
            #expect(try tx.object(forKey: "v", inCollection: nil, as: String.self) == "new")
            #expect(try tx.metadata(forKey: "v", inCollection: nil, as: String.self) == "new-meta")
            #expect(try tx.hasObject(forKey: "added", inCollection: nil))
            #expect(tx.snapshot == 2)
        }
        #expect(reader.snapshot == 2)
    }

    /// The example from YapDatabase's documentation of `snapshot`, made deterministic with semaphores.
    @Test func yapDatabaseSnapshotExample() throws {
        let test = try TestDatabase()
        let db = test.database
        let connection1 = try test.connection()
        let connection2 = try test.connection()
        #expect(db.snapshot == 0)
        #expect(connection1.snapshot == 0)
        #expect(connection2.snapshot == 0)

        try connection1.readWrite { tx in try tx.setObject("one", forKey: "k", inCollection: nil) }
        #expect(db.snapshot == 1)
        #expect(connection1.snapshot == 1)
        #expect(connection2.snapshot == 1)

        let readerBegan = DispatchSemaphore(value: 0)
        let writerCommitted = DispatchSemaphore(value: 0)
        let readerDone = DispatchSemaphore(value: 0)
        let readerSaw = Locked<[String]>([])
        // connection2 starts reading at snapshot 1 and stays there while connection1 commits 2.
        connection2.asyncRead(
            { tx in
                readerSaw.append("start \(connection2.snapshot) \(tx.snapshot)")
                readerBegan.signal()
                guard TestSupport.wait(writerCommitted) else { return }
                let value = try tx.object(forKey: "k", inCollection: nil, as: String.self) ?? "nil"
                readerSaw.append("during \(connection2.snapshot) \(tx.snapshot) \(value)")
            }, completion: { _ in readerDone.signal() })
        #expect(TestSupport.wait(readerBegan))

        let insideWrite = DispatchSemaphore(value: 0)
        let finishWrite = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        let writerSaw = Locked<[String]>([])
        connection1.asyncReadWrite(
            { tx in
                try tx.setObject("two", forKey: "k", inCollection: nil)
                writerSaw.append("inside \(connection1.snapshot)")
                insideWrite.signal()
                _ = TestSupport.wait(finishWrite)
                writerSaw.append("inside-late \(connection1.snapshot)")
            },
            completion: { error in
                writerSaw.append("completion \(connection1.snapshot) \(error == nil)")
                writeDone.signal()
            })
        #expect(TestSupport.wait(insideWrite))
        // The write is open, uncommitted: everyone is still at 1.
        #expect(connection1.snapshot == 1)
        #expect(connection2.snapshot == 1)
        #expect(db.snapshot == 1)
        finishWrite.signal()
        #expect(TestSupport.wait(writeDone))
        #expect(db.snapshot == 2)
        #expect(connection1.snapshot == 2)
        // connection2 is inside its read at snapshot 1.
        #expect(connection2.snapshot == 1)
        writerCommitted.signal()
        #expect(TestSupport.wait(readerDone))
        #expect(connection2.snapshot == 2)
        #expect(writerSaw.value == ["inside 1", "inside-late 1", "completion 2 true"])
        #expect(readerSaw.value == ["start 1 1", "during 1 1 one"])
        #expect(try connection2.read { tx in try tx.object(forKey: "k", inCollection: nil, as: String.self) } == "two")
    }

    /// Readers running while a writer commits many times always see whole commits: two keys
    /// written together are always equal, and snapshots never go backwards.
    @Test func concurrentReadersSeeWholeCommits() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let readers = try (0..<3).map { _ in try test.connection() }
        try writer.readWrite { tx in
            try tx.setObject(0, forKey: "a", inCollection: nil)
            try tx.setObject(0, forKey: "b", inCollection: nil)
        }
        let group = DispatchGroup()
        let problems = Locked<[String]>([])
        let stopReading = Locked(false)
        for reader in readers {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                var lastSnapshot: UInt64 = 0
                var rounds = 0
                while !stopReading.value || rounds < 5 {
                    rounds += 1
                    do {
                        try reader.read { tx in
                            let a = try tx.object(forKey: "a", inCollection: nil, as: Int.self)
                            let b = try tx.object(forKey: "b", inCollection: nil, as: Int.self)
                            if a != b { problems.append("torn read \(String(describing: a)) \(String(describing: b))") }
                            if tx.snapshot < lastSnapshot { problems.append("snapshot went back") }
                            lastSnapshot = tx.snapshot
                            if let a, tx.snapshot != UInt64(a + 1) { problems.append("value \(a) at \(tx.snapshot)") }
                        }
                    } catch {
                        problems.append("\(error)")
                    }
                }
            }
        }
        for value in 1...40 {
            try writer.readWrite { tx in
                try tx.setObject(value, forKey: "a", inCollection: nil)
                try tx.setObject(value, forKey: "b", inCollection: nil)
            }
        }
        stopReading.withLock { $0 = true }
        #expect(TestSupport.wait(group, timeout: .seconds(30)))
        #expect(problems.value.isEmpty, "\(problems.value.prefix(5))")
        #expect(test.database.snapshot == 41)
    }

    /// A read transaction's snapshot number is the commit SQLite shows it, even when it begins
    /// while the writer commits: readers without caches (every value from the file) and a
    /// long-lived reader check `value == snapshot` against a writer committing 1,500 times.
    @Test func readersPinTheSnapshotTheyReport() throws {
        let test = try TestDatabase()
        var uncached = ConnectionConfig()
        uncached.objectCacheEnabled = false
        uncached.metadataCacheEnabled = false
        let writer = try test.connection()
        let readers = try (0..<2).map { _ in try test.database.newConnection(config: uncached) }
        let longLived = try test.database.newConnection(config: uncached)
        try writer.readWrite { tx in try tx.setObject(1, forKey: "n", inCollection: nil) }
        let problems = Locked<[String]>([])
        let stop = Locked(false)
        let group = DispatchGroup()
        /// Reads in a loop until stopped, checking each transaction's value against its snapshot.
        func readUntilStopped(
            _ label: String, _ connection: Connection, beginning: @escaping @Sendable () throws -> Void
        ) {
            DispatchQueue.global().async(group: group) {
                while !stop.value {
                    do {
                        try beginning()
                        try connection.read { tx in
                            let value = try tx.object(forKey: "n", inCollection: nil, as: Int.self)
                            if value.map(UInt64.init) != tx.snapshot {
                                problems.append("\(label): value \(String(describing: value)) at \(tx.snapshot)")
                            }
                        }
                    } catch {
                        problems.append("\(label): \(error)")
                    }
                }
            }
        }
        for (index, reader) in readers.enumerated() { readUntilStopped("reader \(index)", reader) {} }
        readUntilStopped("long-lived", longLived) { _ = try longLived.beginLongLivedReadTransaction() }
        for value in 2...1500 {
            try writer.readWrite { tx in try tx.setObject(value, forKey: "n", inCollection: nil) }
        }
        stop.withLock { $0 = true }
        #expect(TestSupport.wait(group, timeout: .seconds(60)))
        _ = try? longLived.endLongLivedReadTransaction()
        #expect(problems.value.isEmpty, "\(problems.value.prefix(5))")
        #expect(test.database.snapshot == 1500)
    }

    @Test func writeIsInvisibleToOthersUntilCommit() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let reader = try test.connection()
        let seen = Locked<[Bool]>([])
        try writer.readWrite { tx in
            try tx.setObject("pending", forKey: "k", inCollection: nil)
            // Another connection reads concurrently (on its own queue) while this write is open.
            let done = DispatchSemaphore(value: 0)
            reader.asyncRead(
                { tx in seen.append(try tx.hasObject(forKey: "k", inCollection: nil)) },
                completion: { _ in
                    done.signal()
                })
            #expect(TestSupport.wait(done))
        }
        #expect(seen.value == [false])
        #expect(try reader.read { tx in try tx.hasObject(forKey: "k", inCollection: nil) })
    }

    /// Changesets are kept only while some connection still needs them to patch its caches.
    @Test func changesetsAreDroppedOnceEveryConnectionHasSeenThem() throws {
        let test = try TestDatabase()
        let db = test.database
        let retained = { db.state.withLock { $0.changesets.map(\.snapshot) } }
        let writer = try test.connection()
        for round in 0..<20 {
            try writer.readWrite { tx in try tx.setObject(round, forKey: "k", inCollection: nil) }
        }
        #expect(retained().isEmpty)

        // An idle sibling catches up in the background; then nothing needs the changesets.
        let idle = try test.connection()
        try writer.readWrite { tx in try tx.setObject(99, forKey: "k", inCollection: nil) }
        #expect(TestSupport.wait { retained().isEmpty })

        // A long-lived reader needs every changeset after its snapshot until it moves.
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        for round in 0..<5 {
            try writer.readWrite { tx in try tx.setObject(round, forKey: "k", inCollection: nil) }
        }
        #expect(retained() == [22, 23, 24, 25, 26])
        #expect(try reader.beginLongLivedReadTransaction().map(\.snapshot) == [22, 23, 24, 25, 26])
        #expect(TestSupport.wait { retained().isEmpty })
        _ = idle
    }
}
