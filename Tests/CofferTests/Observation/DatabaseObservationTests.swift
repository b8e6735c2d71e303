import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A note for observation tests.
struct ObservedNote: Codable, Sendable, Equatable {
    var title: String
}

/// Value observation: first value at once, re-reads only after relevant commits, from any
/// connection; errors end the sequence; stopping releases everything.
@Suite(.timeLimit(.minutes(1))) struct DatabaseObservationTests {
    struct ReadFailed: Error {}

    private func setUp() throws -> (TestDatabase, Connection) {
        let test = try TestDatabase()
        test.database.registerCodable(ObservedNote.self, forCollection: "notes")
        test.database.registerCodable(ObservedNote.self, forCollection: "drafts")
        return (test, try test.connection())
    }

    private static func put(_ title: String, _ key: String, in collection: String = "notes", on connection: Connection)
        throws
    {
        try connection.readWrite { tx in
            try tx.setObject(ObservedNote(title: title), forKey: key, inCollection: collection)
        }
    }

    private static func connectionCount(_ database: Database) -> Int {
        database.state.withLock { $0.connections.count }
    }

    @Test func deliversTheFirstValueThenOneAfterEachRelevantCommitOnly() async throws {
        let (test, writer) = try setUp()
        try Self.put("one", "n1", on: writer)
        let reads = Locked(0)
        let observation = test.database.observe(.row(forKey: "n1", inCollection: "notes")) { tx in
            reads.withLock { $0 += 1 }
            return try tx.object(forKey: "n1", inCollection: "notes", as: ObservedNote.self)?.title
        }
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next() == "one")
            // Another key, another collection, a custom-object-only commit: no read.
            try Self.put("x", "n2", on: writer)
            try Self.put("x", "n1", in: "drafts", on: writer)
            try await writer.readWrite { tx in tx.notificationCustomObject = "marker" }
            try Self.put("two", "n1", on: writer)
            #expect(try await values.next() == "two")
            #expect(reads.withLock { $0 } == 2)
            // Removing the row, and clearing its collection, are changes too.
            try await writer.readWrite { tx in try tx.removeObject(forKey: "n1", inCollection: "notes") }
            #expect(try await values.next() == .some(nil))
            try Self.put("three", "n1", on: writer)
            #expect(try await values.next() == "three")
            try await writer.readWrite { tx in try tx.removeAllObjects(inCollection: "notes") }
            #expect(try await values.next() == .some(nil))
        }
    }

    @Test func commitsFromEveryConnectionAreSeen() async throws {
        let (test, first) = try setUp()
        let second = try test.connection()
        let observation = test.database.observeObject(forKey: "n", inCollection: "notes", as: ObservedNote.self)
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next() == .some(nil))
            try Self.put("from first", "n", on: first)
            #expect(try await values.next() == ObservedNote(title: "from first"))
            try await second.readWrite { tx in
                try tx.setObject(ObservedNote(title: "from second"), forKey: "n", inCollection: "notes")
            }
            #expect(try await values.next() == ObservedNote(title: "from second"))
        }
    }

    @Test func untypedObjectObservation() async throws {
        let (test, writer) = try setUp()
        let observation = test.database.observeObject(forKey: "n", inCollection: "notes")
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next().flatMap { $0 } == nil)
            try Self.put("t", "n", on: writer)
            let value = try await values.next().flatMap { $0 }
            #expect(value as? ObservedNote == ObservedNote(title: "t"))
        }
    }

    @Test func keyListsChangeOnlyWhenTheKeysDo() async throws {
        let (test, writer) = try setUp()
        let observation = test.database.observeKeys(inCollection: "notes")
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next() == [])
            try Self.put("a", "a", on: writer)
            #expect(try await values.next() == ["a"])
            // A new value under the same key leaves the list as it was: not delivered.
            try Self.put("a2", "a", on: writer)
            try Self.put("b", "b", on: writer)
            #expect(try await values.next()?.sorted() == ["a", "b"])
        }
    }

    @Test func aReadThatThrowsEndsTheSequenceWithItsError() async throws {
        let (test, writer) = try setUp()
        let observation = test.database.observe(.collection("notes")) { tx -> Int in
            guard try tx.numberOfKeys(inCollection: "notes") == 0 else { throw ReadFailed() }
            return 0
        }
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next() == 0)
            try Self.put("a", "a", on: writer)
            var failure: (any Error)?
            do { _ = try await values.next() } catch { failure = error }
            #expect(failure is ReadFailed)
            #expect(try await values.next() == nil)
        }
        #expect(await AsyncPolling.eventually { Self.connectionCount(test.database) == 1 })
    }

    @Test func stoppingTheIterationReleasesTheConnectionAndSubscription() async throws {
        let (test, writer) = try setUp()
        let database = test.database
        #expect(Self.connectionCount(database) == 1)
        let observation = database.observeObject(forKey: "n", inCollection: "notes", as: ObservedNote.self)
        // Leaving the loop.
        let firstValue = try await TestSupport.withTimeout {
            for try await value in observation { return value }
            return nil
        }
        #expect(firstValue == .some(nil))
        #expect(await AsyncPolling.eventually { Self.connectionCount(database) == 1 })
        // Cancelling the consuming task.
        let task = Task {
            var count = 0
            for try await _ in observation { count += 1 }
            return count
        }
        #expect(await AsyncPolling.eventually { Self.connectionCount(database) == 2 })
        task.cancel()
        _ = try? await TestSupport.withTimeout { try await task.value }
        #expect(await AsyncPolling.eventually { Self.connectionCount(database) == 1 })
        // Commits after that reach no observer: nothing is left to run.
        try Self.put("later", "n", on: writer)
        #expect(Self.connectionCount(database) == 1)
    }

    @Test func aSlowConsumerGetsTheLatestValue() async throws {
        let (test, writer) = try setUp()
        try Self.put("0", "n", on: writer)
        let observation = test.database.observeObject(forKey: "n", inCollection: "notes", as: ObservedNote.self)
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next()??.title == "0")
            for step in 1...20 { try Self.put("\(step)", "n", on: writer) }
            var seen: [Int] = []
            while seen.last != 20 {
                guard let title = try await values.next()??.title, let step = Int(title) else { break }
                seen.append(step)
            }
            #expect(seen.last == 20)
            #expect(seen == seen.sorted())
            #expect(seen.count < 20)
        }
    }

    @Test func removingDuplicatesSkipsEqualValues() async throws {
        let (test, writer) = try setUp()
        let observation = test.database.observe(.collection("notes")) { tx in
            try tx.numberOfKeys(inCollection: "notes")
        }
        .removingDuplicates()
        try await TestSupport.withTimeout {
            var values = observation.makeAsyncIterator()
            #expect(try await values.next() == 0)
            try Self.put("a", "a", on: writer)
            #expect(try await values.next() == 1)
            try Self.put("a again", "a", on: writer)
            try Self.put("b", "b", on: writer)
            #expect(try await values.next() == 2)
        }
    }
}
