import Coffer
import CofferTestSupport
import Foundation
import Testing

extension ExtensionKit {
    /// The life cycle the built-in extensions go through, for an extension written outside the
    /// module: registration and population, every write hook, changesets for other connections
    /// and observers, long-lived reads, version tags, unregistration, orphans, memory, failures.
    @Suite struct RowCounterLifecycleTests {
        private struct Poisoned: Error {}

        /// The counts the counter gives and the counts of the rows themselves, for `collections`.
        private func countsAndRows(
            _ connection: Connection, _ collections: [String]
        ) throws -> (counted: [String: Int], rows: [String: Int]) {
            try connection.read { tx in
                let counted = try counter(tx).counts()
                var rows: [String: Int] = [:]
                for collection in collections {
                    let count = try tx.numberOfKeys(inCollection: collection)
                    if count > 0 { rows[collection] = count }
                }
                return (counted, rows)
            }
        }

        @Test func registrationCreatesTheTableAndCountsTheRowsAlreadyThere() throws {
            let test = try KitDatabase()
            let connection = try test.connection()
            try connection.readWrite { tx in
                try addRows(tx, 3, in: "a")
                try addRows(tx, 2, in: "b")
                try addRows(tx, 4, in: "ignored")
            }
            try test.database.register(
                RowCounter(allowedCollections: .allExcept(["ignored"]), versionTag: "1"), withName: "counter")

            #expect(test.database.registeredExtension("counter") is RowCounter)
            #expect(try test.schemaNames(withPrefix: "rowCounter_") == ["rowCounter_counter"])
            #expect(try test.records(ofExtension: "counter") == ["build", "class", "classVersion", "tables", "versionTag"])
            try connection.read { tx in
                let counter = try counter(tx)
                #expect(try counter.counts() == ["a": 3, "b": 2])
                #expect(try counter.count(inCollection: "a") == 3)
                #expect(try counter.count(inCollection: "ignored") == 0)
                #expect(try counter.count(inCollection: "nothing") == 0)
            }
            // The query interface is this type and no other.
            try connection.read { tx in
                #expect(code { _ = try tx.extension("counter", as: SQLProbeTransaction.self) } == .extensionFailure)
                #expect(code { _ = try tx.extension("missing", as: RowCounterTransaction.self) } == .extensionFailure)
            }
        }

        @Test func everyKindOfWriteKeepsTheCountsExact() throws {
            let test = try KitDatabase()
            try test.database.register(
                RowCounter(allowedCollections: .allExcept(["ignored"])), withName: "counter")
            let connection = try test.connection()
            let collections = ["a", "b", "c", "ignored"]
            func check(_ step: String, _ expected: [String: Int]) throws {
                let (counted, rows) = try countsAndRows(connection, collections)
                #expect(counted == expected, "\(step)")
                #expect(counted == rows.filter { $0.key != "ignored" }, "\(step)")
            }

            try connection.readWrite { tx in
                try addRows(tx, 3, in: "a")
                try addRows(tx, 2, in: "b")
                try addRows(tx, 2, in: "ignored")
                // Inside the transaction the buffered changes count already.
                #expect(try counter(tx).counts() == ["a": 3, "b": 2])
            }
            try check("inserts", ["a": 3, "b": 2])

            try connection.readWrite { tx in
                try tx.setObject("new", forKey: "k0", inCollection: "a")
                try tx.setObject("new", forKey: "k0", inCollection: "a", withMetadata: "m")
                try tx.replaceObject("replaced", forKey: "k1", inCollection: "a")
                try tx.replaceMetadata("meta", forKey: "k1", inCollection: "a")
                try tx.replaceObject("nobody", forKey: "missing", inCollection: "a")
                try tx.touchObject(forKey: "k2", inCollection: "a")
                try tx.touchMetadata(forKey: "k2", inCollection: "a")
                try tx.touchRow(forKey: "k0", inCollection: "b")
            }
            try check("updates, replaces and touches", ["a": 3, "b": 2])

            try connection.readWrite { tx in
                try tx.removeObject(forKey: "k0", inCollection: "a")
                try tx.removeObject(forKey: "missing", inCollection: "a")
                try tx.setObject(nil, forKey: "k1", inCollection: "a")
                try tx.removeObjects(forKeys: ["k0", "missing"], inCollection: "b")
                try tx.removeObject(forKey: "k0", inCollection: "ignored")
            }
            try check("removals", ["a": 1, "b": 1])

            try connection.readWrite { tx in
                try addRows(tx, 4, in: "c")
                try tx.removeAllObjects(inCollection: "c")
                try addRows(tx, 2, in: "c", prefix: "again")
                try tx.removeAllObjects(inCollection: "b")
                try tx.removeAllObjects(inCollection: "empty")
            }
            try check("remove all in a collection", ["a": 1, "c": 2])

            try connection.readWrite { tx in
                try tx.removeAllObjectsInAllCollections()
                try addRows(tx, 1, in: "b", prefix: "after")
            }
            try check("remove all collections", ["b": 1])

            try connection.readWrite { tx in
                try addRows(tx, 5, in: "a")
                tx.rollback()
            }
            try check("rolled back", ["b": 1])
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try connection.readWrite { tx in
                    try tx.removeAllObjectsInAllCollections()
                    throw Abort()
                }
            }
            try check("thrown out", ["b": 1])
        }

        @Test func removingACollectionRowByRowCountsEachRow() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(), withName: "counter")
            // Hooks with a per-row removal closure make every extension get one call per removed row.
            var hooks = Hooks(allowedCollections: .only(["a"]))
            hooks.didRemove = { _ in }
            try test.database.register(hooks, withName: "hooks")
            let connection = try test.connection()
            try connection.readWrite { tx in
                try addRows(tx, 4, in: "a")
                try addRows(tx, 2, in: "b")
            }
            try connection.readWrite { tx in try tx.removeAllObjects(inCollection: "a") }
            let (counted, rows) = try countsAndRows(connection, ["a", "b"])
            #expect(counted == ["b": 2])
            #expect(counted == rows)
        }

        @Test func aSiblingConnectionGetsTheChangesAndUpdatesItsCacheWithoutReading() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(allowedCollections: .allExcept(["ignored"])), withName: "counter")
            let writer = try test.connection()
            let sibling = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 3, in: "a") }
            let before = try sibling.read { tx in
                let counter = try counter(tx)
                #expect(try counter.counts() == ["a": 3])
                return counter.statistics
            }
            #expect(before.tableReads == 1)

            let recorder = NotificationRecorder(test.database)
            try writer.readWrite { tx in
                try addRows(tx, 2, in: "a", prefix: "more")
                try addRows(tx, 1, in: "b")
                try tx.removeObject(forKey: "k0", inCollection: "a")
            }
            let snapshot = test.database.snapshot
            try sibling.read { tx in
                let counter = try counter(tx)
                #expect(counter.statistics.deliveries == 1)
                #expect(try counter.counts() == ["a": 4, "b": 1])
                #expect(try counter.count(inCollection: "b") == 1)
                // Answered from the cache the delivered changes moved.
                #expect(counter.statistics.tableReads == before.tableReads)
            }

            let changeset = try #require(recorder.changeset(snapshot: snapshot))
            #expect(
                changeset.changes(for: "counter", as: RowCounterChanges.self)
                    == RowCounterChanges(deltas: ["a": 1, "b": 1]))
            #expect(changeset.hasExtensionChange("counter"))
            #expect(changeset.changes(for: "counter", as: String.self) == nil)
            #expect(changeset.changes(for: "other", as: RowCounterChanges.self) == nil)

            // A commit that changes no count gives the counter no part.
            try writer.readWrite { tx in
                try tx.setObject("again", forKey: "k1", inCollection: "a")
                try addRows(tx, 1, in: "ignored")
            }
            let quiet = try #require(recorder.changeset(snapshot: test.database.snapshot))
            #expect(quiet.changes(for: "counter", as: RowCounterChanges.self) == nil)
            #expect(!quiet.hasExtensionChange("counter"))
            try sibling.read { tx throws in #expect(try counter(tx).statistics.deliveries == 1) }
        }

        @Test func theChangesStreamCarriesTheCountersPart() async throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(), withName: "counter")
            let changes = test.database.changes
            let writer = try test.connection()
            try await writer.readWrite { tx in try addRows(tx, 2, in: "a") }
            try await writer.readWrite { tx in try tx.removeAllObjects(inCollection: "a") }
            let received = try await TestSupport.withTimeout {
                var iterator = changes.makeAsyncIterator()
                var received: [Changeset] = []
                while received.count < 2, let next = await iterator.next() { received.append(next) }
                return received
            }
            #expect(
                received.map { $0.changes(for: "counter", as: RowCounterChanges.self) } == [
                    RowCounterChanges(deltas: ["a": 2]), RowCounterChanges(deltas: ["a": -2]),
                ])
        }

        @Test func aLongLivedReadKeepsOldCountsAndItsChangesetsCarryEveryCommit() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(), withName: "counter")
            let writer = try test.connection()
            let reader = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 2, in: "a") }
            _ = try reader.beginLongLivedReadTransaction()
            #expect(try reader.read { tx in try counter(tx).counts() } == ["a": 2])

            try writer.readWrite { tx in try addRows(tx, 1, in: "a", prefix: "x") }
            try writer.readWrite { tx in try addRows(tx, 2, in: "b") }
            try writer.readWrite { tx in try tx.removeAllObjects(inCollection: "a") }
            try reader.read { tx in
                let counter = try counter(tx)
                #expect(try counter.counts() == ["a": 2])
                #expect(try counter.count(inCollection: "b") == 0)
                #expect(counter.statistics.deliveries == 0)
            }
            // A reader outside the long-lived read sees the newest counts meanwhile.
            #expect(try writer.read { tx in try counter(tx).counts() } == ["b": 2])

            let reads = try reader.read { tx in try counter(tx).statistics.tableReads }
            let changesets = try reader.beginLongLivedReadTransaction()
            #expect(
                changesets.map { $0.changes(for: "counter", as: RowCounterChanges.self)?.deltas } == [
                    ["a": 1], ["b": 2], ["a": -3],
                ])
            try reader.read { tx in
                let counter = try counter(tx)
                #expect(try counter.counts() == ["b": 2])
                #expect(counter.statistics.deliveries == 3)
                #expect(counter.statistics.tableReads == reads)
            }
            try reader.endLongLivedReadTransaction()
        }

        @Test func aReaderPinnedBeforeTheRegistrationGetsAClearError() throws {
            let test = try KitDatabase()
            let reader = try test.connection()
            try test.connection().readWrite { tx in try addRows(tx, 2, in: "a") }
            _ = try reader.beginLongLivedReadTransaction()
            try test.database.register(RowCounter(), withName: "counter")
            try reader.read { tx in
                let counter = try counter(tx)
                #expect(code { _ = try counter.counts() } == .extensionFailure)
            }
            _ = try reader.beginLongLivedReadTransaction()
            #expect(try reader.read { tx in try counter(tx).counts() } == ["a": 2])
            try reader.endLongLivedReadTransaction()
        }

        @Test func aNewVersionTagRebuildsTheCountsAndTheSameTagKeepsThem() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(versionTag: "1"), withName: "counter")
            try test.connection().readWrite { tx in
                try addRows(tx, 3, in: "a")
                try addRows(tx, 2, in: "b")
            }
            // Rows change while the counter is not there to see it.
            try test.database.close()
            do {
                let raw = try RawDatabaseFile(url: test.url, rawKey: test.key, pageSize: 4096)
                try raw.execute(
                    #"DELETE FROM "database2" WHERE "collection" = 'b' OR ("collection" = 'a' AND "key" = 'k0')"#)
            }
            try test.reopen()
            try test.database.register(RowCounter(versionTag: "1"), withName: "counter")
            // The same tag reuses the table as it was.
            #expect(try test.connection().read { tx in try counter(tx).counts() } == ["a": 3, "b": 2])

            try test.reopen()
            try test.database.register(RowCounter(versionTag: "2"), withName: "counter")
            #expect(try test.connection().read { tx in try counter(tx).counts() } == ["a": 2])
            let raw = try RawDatabaseFile(url: test.url, rawKey: test.key, pageSize: 4096)
            #expect(
                try raw.text(
                    #"SELECT CAST("data" AS TEXT) FROM "yap2" WHERE "extension" = 'counter' AND "key" = 'versionTag'"#)
                    == "2")
        }

        @Test func unregisteringDropsTheTableAndTheChangesetSaysSo() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(), withName: "counter")
            let writer = try test.connection()
            let sibling = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 2, in: "a") }
            #expect(try sibling.read { tx in try counter(tx).counts() } == ["a": 2])

            let recorder = NotificationRecorder(test.database)
            let before = test.database.snapshot
            try test.database.unregister(extensionNamed: "counter")
            #expect(test.database.snapshot == before + 1)
            let changeset = try #require(recorder.changeset(snapshot: before + 1))
            #expect(changeset.unregisteredExtensions == ["counter"])
            #expect(changeset.hasExtensionChange("counter"))

            #expect(test.database.registeredExtension("counter") == nil)
            #expect(try test.schemaNames(withPrefix: "rowCounter_").isEmpty)
            #expect(try test.records(ofExtension: "counter").isEmpty)
            try sibling.read { tx in
                #expect(tx.ext("counter") == nil)
                #expect(code { _ = try counter(tx) } == .extensionFailure)
            }
            // Writes go on without it.
            try writer.readWrite { tx in try addRows(tx, 1, in: "b") }
            #expect(try test.schemaNames(withPrefix: "rowCounter_").isEmpty)
        }

        @Test func aCounterNotRegisteredAgainIsDroppedAtTheFirstChangingWrite() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(), withName: "counter")
            try test.connection().readWrite { tx in try addRows(tx, 2, in: "a") }
            try test.reopen()
            #expect(test.database.previouslyRegisteredExtensionNames == ["counter"])
            let connection = try test.connection()
            // Reads, and writes that change nothing, leave it alone.
            try connection.read { tx in #expect(tx.ext("counter") == nil) }
            try connection.readWrite { tx in try tx.removeObject(forKey: "missing", inCollection: "a") }
            #expect(try test.schemaNames(withPrefix: "rowCounter_") == ["rowCounter_counter"])
            #expect(!(try test.records(ofExtension: "counter").isEmpty))

            try connection.readWrite { tx in try addRows(tx, 1, in: "b") }
            #expect(try test.schemaNames(withPrefix: "rowCounter_").isEmpty)
            #expect(try test.schemaNames(withPrefix: "sqlite_autoindex_rowCounter_").isEmpty)
            #expect(try test.records(ofExtension: "counter").isEmpty)
        }

        @Test func flushMemoryReachesTheState() throws {
            let test = try KitDatabase()
            try test.database.register(RowCounter(), withName: "counter")
            let connection = try test.connection()
            try connection.readWrite { tx in try addRows(tx, 2, in: "a") }
            #expect(try connection.read { tx in try counter(tx).counts() } == ["a": 2])
            let reads = try connection.read { tx in try counter(tx).statistics.tableReads }
            #expect(try connection.read { tx in try counter(tx).counts() } == ["a": 2])
            let cached = try connection.read { tx in try counter(tx).statistics }
            #expect(cached.tableReads == reads)
            #expect(cached.flushes == 0)

            connection.flushMemory(.caches)
            try connection.read { tx in
                let counter = try counter(tx)
                #expect(counter.statistics.flushes == 1)
                #expect(try counter.counts() == ["a": 2])
                #expect(counter.statistics.tableReads == reads + 1)
            }
            // Inside a transaction too.
            try connection.read { _ in connection.flushMemory() }
            try connection.read { tx throws in #expect(try counter(tx).statistics.flushes == 2) }
        }

        @Test func reRegisteringUnderTheSameNameGivesEveryConnectionTheNewConfiguration() throws {
            let test = try KitDatabase()
            let writer = try test.connection()
            let sibling = try test.connection()
            try writer.readWrite { tx in
                try addRows(tx, 2, in: "a")
                try addRows(tx, 3, in: "b")
            }
            let old = StateCensus()
            try test.database.register(RowCounter(allowedCollections: .only(["a"]), census: old), withName: "counter")
            for connection in [writer, sibling] {
                #expect(try connection.read { tx in try counter(tx).counts() } == ["a": 2])
            }

            try test.database.unregister(extensionNamed: "counter")
            let new = StateCensus()
            try test.database.register(RowCounter(allowedCollections: .only(["b"]), census: new), withName: "counter")
            for connection in [writer, sibling] {
                try connection.read { tx in
                    let counter = try counter(tx)
                    #expect(counter.allowedCollections.isAllowed("b"))
                    #expect(!counter.allowedCollections.isAllowed("a"))
                    #expect(try counter.counts() == ["b": 3])
                    #expect(counter.statistics.deliveries == 0)
                }
            }
            try writer.readWrite { tx in
                try addRows(tx, 1, in: "b", prefix: "more")
                try addRows(tx, 1, in: "a", prefix: "more")
            }
            try sibling.read { tx in
                let counter = try counter(tx)
                #expect(try counter.counts() == ["b": 4])
                #expect(counter.statistics.deliveries == 1)
            }
            // Every state of the first configuration is gone; each connection made one of the new.
            #expect(TestSupport.wait(timeout: .seconds(5)) { old.alive == 0 })
            #expect(new.alive >= 2)
        }

        @Test func aRegistrationWhosePopulateFailsLeavesNothingBehind() throws {
            let test = try KitDatabase()
            let writer = try test.connection()
            let sibling = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 5, in: "a") }
            let snapshot = test.database.snapshot
            let census = StateCensus()
            let poisoned = RowCounter(
                populateCheck: { row in if row.key == "k3" { throw Poisoned() } }, census: census)

            #expect(code { try test.database.register(poisoned, withName: "counter") } == .extensionFailure)
            try expectNothingLeft(test, [writer, sibling], snapshot: snapshot)
            // Only the registering connection made a state, and it is gone with it.
            #expect(census.made == 1)
            #expect(TestSupport.wait(timeout: .seconds(5)) { census.alive == 0 })

            // The name is free, and a sound counter under it works on every connection.
            try test.database.register(RowCounter(allowedCollections: .only(["a"])), withName: "counter")
            for connection in [writer, sibling] {
                #expect(try connection.read { tx in try counter(tx).counts() } == ["a": 5])
            }
        }

        @Test func aRegistrationWithAMissingDependencyLeavesNothingBehind() throws {
            let test = try KitDatabase()
            let writer = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 2, in: "a") }
            let snapshot = test.database.snapshot
            let census = StateCensus()
            let error = databaseError {
                try test.database.register(RowCounter(dependencies: ["absent"], census: census), withName: "counter")
            }
            #expect(error?.code == .extensionFailure)
            #expect(error?.message.contains("\"absent\"") == true)
            try expectNothingLeft(test, [writer], snapshot: snapshot)
            #expect(census.made == 0)
        }

        private func expectNothingLeft(_ test: KitDatabase, _ connections: [Connection], snapshot: UInt64) throws {
            #expect(test.database.registeredExtension("counter") == nil)
            #expect(test.database.snapshot == snapshot)
            #expect(try test.schemaNames(withPrefix: "rowCounter_").isEmpty)
            #expect(try test.schemaNames(withPrefix: "sqlite_autoindex_rowCounter_").isEmpty)
            #expect(try test.records(ofExtension: "counter").isEmpty)
            for connection in connections {
                try connection.read { tx throws in
                    #expect(tx.ext("counter") == nil)
                    #expect(try tx.numberOfKeys(inCollection: "a") > 0)
                }
                try connection.readWrite { tx in try addRows(tx, 1, in: "z", prefix: "\(connection.id)") }
            }
            #expect(try test.schemaNames(withPrefix: "rowCounter_").isEmpty)
        }
    }
}
