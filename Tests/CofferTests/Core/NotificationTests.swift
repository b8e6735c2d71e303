import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Commit notifications: `Database.modifiedNotification` and the `database.changes` sequence.
@Suite struct NotificationTests {
    private func ck(_ collection: String, _ key: String) -> CollectionKey {
        CollectionKey(collection: collection, key: key)
    }

    @Test func notificationCarriesTheWholeChangeset() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        writer.name = "writer-1"
        #expect(writer.name == "writer-1")
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "existing", inCollection: "a", withMetadata: 1)
            try tx.setObject(2, forKey: "doomed", inCollection: "a")
            try tx.setObject(3, forKey: "x", inCollection: "gone")
        }
        let posted = Locked<[(fromDatabase: Bool, changeset: Changeset?)]>([])
        let database = test.database
        let observer = NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: test.database, queue: nil
        ) { notification in
            posted.append(
                (
                    notification.object as? Database === database,
                    notification.userInfo?[Database.changesetKey] as? Changeset
                ))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.readWrite { tx in
            try tx.setObject(10, forKey: "new", inCollection: "a", withMetadata: "m")
            try tx.replaceObject(11, forKey: "existing", inCollection: "a")
            try tx.replaceMetadata(nil, forKey: "existing", inCollection: "b")  // missing row: no change
            try tx.touchMetadata(forKey: "existing", inCollection: "a")
            try tx.removeObject(forKey: "doomed", inCollection: "a")
            try tx.removeAllObjects(inCollection: "gone")
            tx.notificationCustomObject = "why"
        }
        #expect(TestSupport.wait { posted.value.contains { $0.changeset?.snapshot == 2 } })
        let notification = try #require(posted.value.first { $0.changeset?.snapshot == 2 })
        #expect(notification.fromDatabase)
        let changeset = try #require(notification.changeset)
        #expect(changeset.snapshot == 2)
        #expect(changeset.connectionID == writer.id)
        #expect(changeset.connectionName == "writer-1")
        #expect(changeset.objectChanges == [ck("a", "new"), ck("a", "existing")])
        #expect(changeset.metadataChanges == [ck("a", "new"), ck("a", "existing")])
        #expect(changeset.insertedKeys == [ck("a", "new")])
        #expect(changeset.removedKeys == [ck("a", "doomed")])
        #expect(changeset.removedCollections == ["gone"])
        #expect(!changeset.allKeysRemoved)
        #expect(changeset.customObject as? String == "why")
        #expect(changeset.extensionChanges.isEmpty)
    }

    @Test func removeAllIsReportedAsSuch() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: "a") }
        let recorder = NotificationRecorder(test.database)
        try writer.readWrite { tx in
            try tx.setObject(2, forKey: "before", inCollection: "a")
            try tx.removeAllObjectsInAllCollections()
            try tx.setObject(3, forKey: "after", inCollection: "b")
        }
        let changeset = try #require(recorder.changeset(snapshot: 2))
        #expect(changeset.allKeysRemoved)
        #expect(changeset.objectChanges == [ck("b", "after")])
        #expect(changeset.insertedKeys == [ck("b", "after")])
        #expect(changeset.removedKeys.isEmpty)
    }

    /// Whole-row writes are recorded in order and folded into the changeset later; mixing them
    /// with replaces, touches and removals in one transaction must give the same record as
    /// applying each step at once.
    @Test func interleavedChangesFoldInOrder() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "old", inCollection: "a") }
        let recorder = NotificationRecorder(test.database)
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "k1", inCollection: "a")
            try tx.replaceObject(2, forKey: "k1", inCollection: "a")
            try tx.touchMetadata(forKey: "k1", inCollection: "a")
            try tx.setObject(3, forKey: "k1", inCollection: "a")
            try tx.setObject(4, forKey: "k2", inCollection: "a")
            try tx.removeObject(forKey: "k2", inCollection: "a")
            try tx.setObject(5, forKey: "old", inCollection: "a")
            try tx.setObject(6, forKey: "old", inCollection: "a", withMetadata: "m")
            try tx.setObject(7, forKey: "x", inCollection: "b")
            try tx.removeAllObjects(inCollection: "b")
            try tx.setObject(8, forKey: "y", inCollection: "b")
            try tx.touchObject(forKey: "y", inCollection: "b")
        }
        let changeset = try #require(recorder.changeset(snapshot: 2))
        #expect(changeset.objectChanges == [ck("a", "k1"), ck("a", "old"), ck("b", "y")])
        #expect(changeset.metadataChanges == [ck("a", "k1"), ck("a", "old"), ck("b", "y")])
        #expect(changeset.insertedKeys == [ck("a", "k1"), ck("b", "y")])
        #expect(changeset.removedKeys == [ck("a", "k2")])
        #expect(changeset.removedCollections == ["b"])
        let values = try writer.read { tx in
            try ["k1", "old"].map { try tx.object(forKey: $0, inCollection: "a", as: Int.self) }
        }
        #expect(values == [3, 6])
    }

    @Test func writesThatChangeNothingPostNothing() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let recorder = NotificationRecorder(test.database)
        try writer.readWrite { _ in }
        try writer.readWrite { tx in
            try tx.removeObject(forKey: "missing", inCollection: nil)
            try tx.removeObjects(forKeys: ["a", "b"], inCollection: nil)
            try tx.replaceObject(1, forKey: "missing", inCollection: nil)
            try tx.replaceMetadata(1, forKey: "missing", inCollection: nil)
            try tx.touchRow(forKey: "missing", inCollection: nil)
            try tx.removeAllObjects(inCollection: "empty")
            try tx.removeAllObjectsInAllCollections()
        }
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "k", inCollection: nil)
            tx.rollback()
        }
        _ = try? writer.readWrite { tx in
            try tx.setObject(1, forKey: "k", inCollection: nil)
            throw CancellationError()
        }
        #expect(test.database.snapshot == 0)
        #expect(writer.snapshot == 0)
        try writer.readWrite { tx in try tx.setObject(1, forKey: "real", inCollection: nil) }
        #expect(test.database.snapshot == 1)
        #expect(recorder.changeset(snapshot: 1) != nil)
        // Notifications are posted in commit order on one queue: nothing came before the real one.
        #expect(recorder.changesets.map(\.snapshot) == [1])
        #expect(recorder.count == 1)
        // And the next read transaction starts at that snapshot.
        try writer.read { tx throws in #expect(tx.snapshot == 1) }
    }

    @Test func notificationsArriveInCommitOrderFromEveryConnection() throws {
        let test = try TestDatabase()
        let connections = try (0..<3).map { _ in try test.connection() }
        let recorder = NotificationRecorder(test.database)
        for round in 0..<15 {
            let conn = connections[round % 3]
            try conn.readWrite { tx in try tx.setObject(round, forKey: "k", inCollection: nil) }
        }
        #expect(recorder.wait(forCount: 15))
        #expect(recorder.changesets.map(\.snapshot) == Array(1...15))
        #expect(recorder.changesets.map(\.connectionID) == (0..<15).map { connections[$0 % 3].id })
    }

    /// A burst of commits is posted in batches: every commit still arrives, once, in order, and a
    /// completion queued in the middle of the burst runs after the notifications before it.
    @Test func burstOfCommitsIsPostedCompletelyAndInOrder() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let recorder = NotificationRecorder(test.database)
        let seenByCompletion = Locked<[UInt64]?>(nil)
        for round in 0..<300 {
            try writer.readWrite { tx in
                try tx.setObject(round, forKey: "k\(round % 7)", inCollection: nil)
                if round == 150 {
                    tx.addCompletion { seenByCompletion.withLock { $0 = recorder.changesets.map(\.snapshot) } }
                }
            }
        }
        #expect(recorder.wait(forCount: 300))
        #expect(recorder.changesets.map(\.snapshot) == Array(1...300))
        #expect(TestSupport.wait(timeout: .seconds(5)) { seenByCompletion.value != nil })
        #expect(seenByCompletion.value.map { Array($0.prefix(151)) } == Array(1...151))
    }

    @Test func changesSequenceYieldsEveryCommitInOrder() async throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let changes = test.database.changes
        for round in 0..<5 {
            try await writer.readWrite { tx in try tx.setObject(round, forKey: "k\(round)", inCollection: "c") }
        }
        try await writer.readWrite { _ in }  // nothing to report
        let received = try await TestSupport.withTimeout {
            var snapshots: [UInt64] = []
            var inserted: [Set<CollectionKey>] = []
            for await changeset in changes {
                snapshots.append(changeset.snapshot)
                inserted.append(changeset.insertedKeys)
                if snapshots.count == 5 { break }
            }
            return (snapshots, inserted)
        }
        #expect(received.0 == [1, 2, 3, 4, 5])
        #expect(received.1 == (0..<5).map { [CollectionKey(collection: "c", key: "k\($0)")] })
    }

    @Test func eachChangesSequenceIsIndependent() async throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let first = test.database.changes
        try await writer.readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: nil) }
        let second = test.database.changes
        try await writer.readWrite { tx in try tx.setObject(2, forKey: "b", inCollection: nil) }
        let fromFirst = try await TestSupport.withTimeout {
            var seen: [UInt64] = []
            for await changeset in first {
                seen.append(changeset.snapshot)
                if seen.count == 2 { break }
            }
            return seen
        }
        let fromSecond = try await TestSupport.withTimeout {
            var seen: [UInt64] = []
            for await changeset in second {
                seen.append(changeset.snapshot)
                break
            }
            return seen
        }
        #expect(fromFirst == [1, 2])
        #expect(fromSecond == [2])
    }

    @Test func changesSequenceEndsWhenTheDatabaseGoesAway() async throws {
        var test: TestDatabase? = try TestDatabase()
        let changes = try #require(test?.database.changes)
        try await test?.connection().readWrite { tx in try tx.setObject(1, forKey: "a", inCollection: nil) }
        test = nil
        let count = try await TestSupport.withTimeout {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        #expect(count == 1)
    }
}

extension NotificationTests {
    /// Code in a completion block can rely on the commit's notification having been delivered.
    @Test func notificationIsPostedBeforeCompletionsRun() throws {
        let test = try TestDatabase()
        let conn = try test.connection()
        let events = Locked<[String]>([])
        let database = test.database
        let observer = NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: database, queue: nil
        ) { _ in events.append("notification") }
        defer { NotificationCenter.default.removeObserver(observer) }
        let done = DispatchSemaphore(value: 0)
        conn.asyncReadWrite(
            { tx in
                try tx.setObject(1, forKey: "k", inCollection: nil)
                tx.addCompletion { events.append("transaction completion") }
            },
            completion: { _ in
                events.append("asyncReadWrite completion")
                done.signal()
            })
        #expect(TestSupport.wait(done))
        #expect(events.value == ["notification", "transaction completion", "asyncReadWrite completion"])
    }
}
