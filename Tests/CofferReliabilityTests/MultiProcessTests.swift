import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Several processes on one file with ``DatabaseOptions/multiProcessSupport``: `coffer-stress
/// counter` children write, this process reads and writes through its caches.
@Suite struct MultiProcessTests {
    let directory = TemporaryDirectory("coffer-multiprocess")
    let key = TestSupport.randomKey()
    var url: URL { directory.file("shared.sqlite") }
    var environment: [String: String] { ["COFFER_STRESS_KEY": StressSettings.hex(key)] }

    /// Opens the shared file in this process, with multi-process support and the counter codec.
    func open() throws -> Database {
        var options = TestSupport.rawKeyOptions(key)
        options.multiProcessSupport = true
        let db = try TestSupport.open(url, options: options)
        db.registerCodable(Int.self, forCollection: "counters")
        return db
    }

    func counter(_ tx: ReadTransaction) throws -> Int {
        try tx.object(forKey: "count", inCollection: "counters", as: Int.self) ?? 0
    }

    /// Every counter row in group "all", by value: the view `coffer-stress counter --view`
    /// (or `--memory-view`) registers.
    func byValue(isPersistent: Bool) -> AutoView {
        AutoView(
            grouping: ViewGrouping.object(Int.self) { _, group in group = "all" },
            sorting: ViewSorting.object(Int.self) { _, left, right in
                left.object < right.object
                    ? .orderedAscending : left.object > right.object ? .orderedDescending : .orderedSame
            },
            versionTag: "1", allowedCollections: .only(["counters"]), isPersistent: isPersistent)
    }

    func child(_ arguments: [String]) throws -> StressChild {
        try StressChild(
            ["counter", "--database", url.path] + arguments, environment: environment, logDirectory: directory.url)
    }

    /// The last value a counter child acknowledged.
    func lastAcknowledged(_ child: StressChild) -> Int {
        child.lines.last { Int($0) != nil }.flatMap { Int($0) } ?? 0
    }

    @Test func twoWriterProcessesAndThisOneLoseNoIncrement() throws {
        let db = try open()
        let connection = try db.newConnection()
        // Read once, so the object cache holds a value the children's commits make stale.
        #expect(try connection.read { try counter($0) } == 0)
        let children = try (0..<2).map { _ in try child(["--limit", "300"]) }
        for child in children { try child.waitUntilReady() }
        for _ in 0..<200 {
            try connection.readWrite { tx in
                try tx.setObject(try counter(tx) + 1, forKey: "count", inCollection: "counters")
            }
        }
        for child in children {
            try child.waitForLine(startingWith: "done", timeout: .seconds(120))
            child.killNow()
        }
        #expect(try connection.read { try counter($0) } == 800)
    }

    @Test func aReaderSeesEveryCommitItWasToldOfAndNothingTorn() throws {
        let db = try open()
        let connection = try db.newConnection()
        let observer = try db.newConnection()
        _ = try observer.beginLongLivedReadTransaction()
        let writer = try child(["--limit", "0", "--log"])
        try writer.waitUntilReady()
        try writer.waitForLine(startingWith: "1")
        // A long-lived reader moving on learns of the other process's commits as an external reset.
        let changesets = try observer.beginLongLivedReadTransaction()
        #expect(changesets.contains { $0.isReset && $0.isExternal })
        #expect(try observer.read { try counter($0) } >= 1)

        var previous = 0
        let deadline = ContinuousClock.now + .seconds(2)
        var reads = 0
        while ContinuousClock.now < deadline || reads < 50 {
            let acknowledged = lastAcknowledged(writer)
            let (value, logged) = try connection.read { tx in
                let value = try counter(tx)
                return (value, try tx.object(forKey: "v\(value)", inCollection: "counters", as: Int.self))
            }
            #expect(value >= acknowledged, "a cached value older than a commit the reader knew of")
            #expect(value >= previous, "the snapshot went backwards")
            #expect(value == 0 || logged == value, "a torn transaction: v\(value) is \(String(describing: logged))")
            previous = value
            reads += 1
        }
        #expect(writer.killNow(), "the writer exited on its own: \(writer.errorOutput)")
        _ = try observer.endLongLivedReadTransaction()
    }

    @Test func anIdleProcessHearsOfAnotherProcesssCommit() async throws {
        let db = try open()
        let connection = try db.newConnection()
        #expect(try await connection.read { try counter($0) } == 0)
        let changes = db.changes
        let writer = try child(["--limit", "3"])
        // Nothing in this process runs a transaction: the watcher alone must notice.
        let heard = try await withThrowingTaskGroup(of: Changeset?.self) { group in
            group.addTask {
                for await changeset in changes where changeset.isExternal { return changeset }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        let external = try #require(heard, "no external change was announced within 30 s")
        #expect(external.isReset && external.connectionID == 0)
        try writer.waitForLine(startingWith: "done")
        writer.killNow()
        #expect(try await connection.read { try counter($0) } == 3)
    }

    /// The same persistent view registered in both processes: this one's connection state is
    /// reset by the other's commits and reads the pages that process wrote.
    @Test func aViewBothProcessesRegisterStaysInStep() throws {
        let db = try open()
        try db.register(
            byValue(isPersistent: true),
            withName: "byValue")
        let connection = try db.newConnection()
        func shown() throws -> [String] {
            try connection.read { tx in
                let view = try tx.extension("byValue", as: ViewTransaction.self)
                return try (0..<view.numberOfItems(inGroup: "all")).compactMap {
                    try view.key(at: $0, inGroup: "all")?.key
                }
            }
        }
        try connection.readWrite { tx in try tx.setObject(0, forKey: "v0", inCollection: "counters") }
        #expect(try shown() == ["v0"])
        let writer = try child(["--limit", "20", "--log", "--view"])
        try writer.waitForLine(startingWith: "done", timeout: .seconds(60))
        writer.killNow()
        // By value; "count" (20) was rewritten before "v20" (20) in the last transaction, and rows
        // that compare the same keep the order they were placed in.
        let expected = (0...19).map { "v\($0)" } + ["count", "v20"]
        #expect(try shown() == expected)
        try connection.readWrite { tx in try tx.setObject(-1, forKey: "below", inCollection: "counters") }
        #expect(try shown().first == "below")
    }

    /// The snapshot number in the file, read past Coffer (read only).
    func storedSnapshot() throws -> Int64? {
        try RawDatabaseFile(url: url, rawKey: key, pageSize: 4096).int(
            "SELECT data FROM yap2 WHERE extension = '' AND key = 'snapshot'")
    }

    @Test func aProcessAloneWritesNoNumberAndOneOpeningLaterStillSeesItsCommitsAndMakesItsOwnSeen() throws {
        // A first process, alone, leaves the file with a number when it closes.
        let first = try child(["--limit", "1"])
        try first.waitForLine(startingWith: "done", timeout: .seconds(60))
        try first.waitForExit(timeout: .seconds(60))
        let stored = try storedSnapshot()
        #expect(stored != nil)
        let db = try open()
        let connection = try db.newConnection()
        // A sibling reading through its cache after every commit: its snapshot is this process's
        // last commit, not the lagging number its first read returns.
        let reader = try db.newConnection()
        for expected in 2...100 {
            try connection.readWrite { tx in
                try tx.setObject(try counter(tx) + 1, forKey: "count", inCollection: "counters")
            }
            #expect(try reader.read { try counter($0) } == expected)
            #expect(try reader.read { _ in reader.snapshot } == db.snapshot)
        }
        // Alone with the file, the commits wrote no number: the file's lags this process's.
        #expect(try storedSnapshot() == stored)
        #expect(try connection.read { try counter($0) } == 100)

        // The child opens after those commits and must both read them and have its own commits
        // noticed here, though the number in the file is 99 commits behind this process's.
        let writer = try child(["--limit", "10"])
        try writer.waitForLine(startingWith: "done", timeout: .seconds(60))
        writer.killNow()
        #expect(try connection.read { try counter($0) } == 110)
        #expect(db.snapshot >= UInt64(stored ?? 0) + (1 << 32), "the opening process announced itself")

        // With the child gone this process is alone again; its commits still land.
        try connection.readWrite { tx in
            try tx.setObject(try counter(tx) + 1, forKey: "count", inCollection: "counters")
        }
        #expect(try connection.read { try counter($0) } == 111)
    }

    @Test func preferencesReloadWhatAnotherProcessSetAndSayItWasExternal() throws {
        let db = try open()
        let preferences = try Preferences(database: db, suite: "app")
        preferences.set("light", forKey: "theme")
        preferences.set(1, forKey: "untouched")
        try preferences.flush()
        let heard = Locked<[Set<String>]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: Preferences.didChangeNotification, object: preferences, queue: nil
        ) { note in
            guard note.userInfo?[Preferences.isExternalKey] as? Bool == true,
                let keys = note.userInfo?[Preferences.changedKeysKey] as? Set<String>
            else { return }
            heard.withLock { $0.append(keys) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let writer = try StressChild(
            ["preference", "--database", url.path, "--suite", "app", "--key", "theme", "--value", "dark"],
            environment: environment, logDirectory: directory.url)
        try writer.waitForLine(startingWith: "done", timeout: .seconds(60))
        try writer.waitForExit(timeout: .seconds(60))
        // The other process's commit reaches this one as an external reset: every key is read
        // back, and only the one that changed is announced, as external.
        #expect(TestSupport.wait(timeout: .seconds(20)) { preferences.string(forKey: "theme") == "dark" })
        #expect(TestSupport.wait(timeout: .seconds(20)) { heard.withLock { $0.contains { $0.contains("theme") } } })
        #expect(heard.withLock { $0.allSatisfy { !$0.contains("untouched") } })
        #expect(preferences.integer(forKey: "untouched") == 1)
    }

    @Test func aNonPersistentViewIsRebuiltAfterAnotherProcessWritesAndNoProcessRebuildsForEver() throws {
        let db = try open()
        try db.register(
            byValue(isPersistent: false),
            withName: "byValue")
        let connection = try db.newConnection()
        func shownCount() throws -> Int {
            try connection.read { tx in
                try tx.extension("byValue", as: ViewTransaction.self).numberOfItems(inGroup: "all")
            }
        }
        try connection.readWrite { tx in try tx.setObject(0, forKey: "v0", inCollection: "counters") }
        #expect(try shownCount() == 1)
        // The other process keeps a non-persistent view too, and stays open: were a rebuild
        // taken for a change of rows, each process's rebuild would start the other's.
        let writer = try child(["--limit", "20", "--log", "--memory-view", "--hold"])
        try writer.waitForLine(startingWith: "done", timeout: .seconds(60))
        // "v0", "count" and "v1" … "v20".
        #expect(TestSupport.wait(timeout: .seconds(20)) { (try? shownCount()) == 22 })
        // A rebuild may still follow the last reset; after it, nothing moves: were each
        // process's rebuild a reset for the other, the numbers would climb for ever.
        var settled = db.snapshot
        let stable = TestSupport.wait(timeout: .seconds(20)) {
            Thread.sleep(forTimeInterval: 0.5)
            defer { settled = db.snapshot }
            return db.snapshot == settled
        }
        #expect(stable, "the processes went on rebuilding in turn")
        Thread.sleep(forTimeInterval: 1)
        #expect(db.snapshot == settled, "the processes went on rebuilding in turn")
        #expect(try shownCount() == 22)
        writer.killNow()
    }

    /// The process that creates the file read its salt with a descriptor of its own and closed
    /// it, which dropped SQLite's locks on the file; a second process closing its last handle
    /// then found the file unused, checkpointed and deleted the write-ahead log under this one,
    /// and this process's commits went to the deleted log while a third process wrote a new one.
    @Test func theCreatingProcessKeepsItsLocksSoAnotherProcesssCloseLeavesTheLogAlone() throws {
        let db = try open()
        let connection = try db.newConnection()
        try connection.readWrite { tx in try tx.setObject(0, forKey: "count", inCollection: "counters") }
        #expect(try connection.read { try counter($0) } == 0)
        let first = try child(["--limit", "5"])
        try first.waitForLine(startingWith: "done", timeout: .seconds(60))
        try first.waitForExit(timeout: .seconds(60))
        let second = try child(["--limit", "5", "--hold"])
        try second.waitForLine(startingWith: "done", timeout: .seconds(60))
        try connection.readWrite { tx in
            try tx.setObject(try counter(tx) + 1, forKey: "count", inCollection: "counters")
        }
        #expect(try connection.read { try counter($0) } == 11)
        second.killNow()
        let third = try child(["--limit", "1"])
        try third.waitForLine(startingWith: "done", timeout: .seconds(60))
        #expect(lastAcknowledged(third) == 12, "another process sees every commit of this one")
        third.killNow()
    }

    @Test func keyRotationIsRefusedWhileAnotherProcessHasTheFileOpen() throws {
        let db = try open()
        let connection = try db.newConnection()
        let writer = try child(["--limit", "0"])
        try writer.waitUntilReady()
        try writer.waitForLine(startingWith: "1")
        let newKey = TestSupport.randomKey()
        var refusal: DatabaseError?
        do {
            try db.rotateKey(to: .raw(newKey))
        } catch let error as DatabaseError {
            refusal = error
        }
        #expect(refusal?.code == .busy)
        #expect(refusal?.message.contains("another process") == true)
        // Nothing was touched: the other process goes on writing under the old key.
        let before = lastAcknowledged(writer)
        try writer.waitForLine(startingWith: "\(before + 5)")
        #expect(try connection.read { try counter($0) } >= before + 5)
        #expect(writer.killNow())

        try db.rotateKey(to: .raw(newKey))
        #expect(try connection.read { try counter($0) } >= before + 5)
    }

    @Test func killedWriterProcessesLoseNoAcknowledgedIncrement() throws {
        let seed = StressSettings.seed()
        print("MultiProcess.kills seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        let db = try open()
        let connection = try db.newConnection()
        var expected = 0
        for iteration in 0..<StressSettings.kills(ci: 50, stress: 500) {
            let writer = try child(["--limit", "0"])
            try writer.waitUntilReady()
            pause(microseconds: Int.random(in: 0..<50_000, using: &rng))
            #expect(writer.killNow(), "iteration \(iteration): the writer exited on its own: \(writer.errorOutput)")
            let acknowledged = lastAcknowledged(writer)
            // This process goes on writing through its cache after every kill.
            let value = try connection.readWrite { tx in
                let next = try counter(tx) + 1
                try tx.setObject(next, forKey: "count", inCollection: "counters")
                return next
            }
            #expect(value > max(expected, acknowledged), "iteration \(iteration) seed \(seed): lost an increment")
            expected = value
        }
        #expect(try connection.read { try counter($0) } == expected)
    }
}
