import Coffer
import CofferTestSupport
import Foundation
import Testing

extension ExtensionKit {
    /// Flush rounds before the commit: a flush may write rows whose hooks give extensions new
    /// work, so rounds repeat until none has any, and fail only when they do not converge.
    @Suite struct RepeatedFlushTests {
        @Test func aCascadeAcrossExtensionsTakesThreeRoundsInOneCommit() throws {
            let test = try KitDatabase()
            let log = Shared<[String]>([])
            try test.database.register(
                Relay(
                    label: "P",
                    rules: [
                        "start": RelayTarget(collection: "a", key: "r1"), "b": RelayTarget(collection: "c", key: "r3"),
                    ], log: log), withName: "p")
            try test.database.register(
                Relay(label: "Q", rules: ["a": RelayTarget(collection: "b", key: "r2")], log: log), withName: "q")
            let connection = try test.connection()
            let recorder = NotificationRecorder(test.database)
            let before = test.database.snapshot

            try connection.readWrite { tx in try tx.setObject("go", forKey: "r0", inCollection: "start") }

            // Each round has one extension with work, so each flush is one round.
            #expect(log.value == ["P a/r1", "Q b/r2", "P c/r3"])
            #expect(test.database.snapshot == before + 1)
            try connection.read { tx throws in
                for (collection, key) in [("start", "r0"), ("a", "r1"), ("b", "r2"), ("c", "r3")] {
                    #expect(try tx.object(forKey: key, inCollection: collection) != nil, "\(collection)/\(key)")
                }
            }
            let changeset = try #require(recorder.changeset(snapshot: before + 1))
            #expect(
                changeset.insertedKeys == [
                    CollectionKey(collection: "start", key: "r0"), CollectionKey(collection: "a", key: "r1"),
                    CollectionKey(collection: "b", key: "r2"), CollectionKey(collection: "c", key: "r3"),
                ])
        }

        @Test func aDeepCascadeDrainedInsideOneRoundFinishes() throws {
            let test = try KitDatabase()
            let flushes = Shared(0)
            try test.database.register(Chain(length: 5_000, flushes: flushes), withName: "chain")
            let connection = try test.connection()
            let outcome = TestSupport.runBounded(timeout: .seconds(120)) {
                try connection.readWrite { tx in try tx.setObject(0, forKey: "n0", inCollection: "chain") }
                return try connection.read { tx in try tx.numberOfKeys(inCollection: "chain") }
            }
            let finished = try #require(outcome)
            #expect(try finished.get() == 5_001)
            #expect(flushes.value == 1)
        }

        @Test func aPairThatNeverConvergesFailsAndRollsBack() throws {
            let test = try KitDatabase()
            try test.database.register(PingPong(to: "q", answer: "p"), withName: "ping")
            try test.database.register(PingPong(to: "p", answer: "q"), withName: "pong")
            let connection = try test.connection()
            let before = test.database.snapshot
            let outcome = TestSupport.runBounded(timeout: .seconds(120)) { () -> DatabaseError? in
                databaseError {
                    try connection.readWrite { tx in
                        try tx.setObject("kept?", forKey: "other", inCollection: "side")
                        try tx.setObject("q", forKey: "x", inCollection: "loop")
                    }
                }
            }
            let finished = try #require(outcome)
            let error = try #require(try finished.get())
            #expect(error.code == .extensionFailure)
            #expect(error.message.contains("did not converge"))
            #expect(error.collection == "loop")
            #expect(error.key == "x")
            #expect(test.database.snapshot == before)
            try connection.read { tx throws in
                #expect(try tx.numberOfKeys(inCollection: "loop") == 0)
                #expect(try tx.numberOfKeys(inCollection: "side") == 0)
            }
            // Nothing of the failed transaction is left pending: the next one commits as usual.
            try connection.readWrite { tx in try tx.setObject("p", forKey: "y", inCollection: "side") }
            #expect(try connection.read { tx in try tx.numberOfKeys(inCollection: "side") } == 1)
        }

        @Test func roundsThatClaimWorkButChangeNothingFail() throws {
            let test = try KitDatabase()
            try test.database.register(Procrastinator(), withName: "later")
            let connection = try test.connection()
            let outcome = TestSupport.runBounded(timeout: .seconds(60)) { () -> DatabaseError? in
                databaseError { try connection.readWrite { tx in try addRows(tx, 1, in: "a") } }
            }
            let finished = try #require(outcome)
            let error = try #require(try finished.get())
            #expect(error.code == .extensionFailure)
            #expect(error.message.contains("did not converge"))
            #expect(try connection.read { tx in try tx.numberOfKeys(inCollection: "a") } == 0)
        }
    }
}
