import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `Connection.viewUpdates(_:)`: a view's changes as an asynchronous sequence, each step moving
/// the connection to the snapshot its mappings count.
@Suite(.timeLimit(.minutes(1))) struct ViewUpdatesTests {
    static func keys(_ connection: Connection) throws -> [String] {
        try connection.read { tx throws in
            var keys: [String] = []
            try tx.extension("numbers", as: ViewTransaction.self).enumerateKeys(inGroup: "even") { row, _, _ in
                keys.append(row.key)
            }
            return keys
        }
    }

    @Test(arguments: [true, false])
    func eachCommitThatChangesTheViewIsOneUpdate(persistent: Bool) async throws {
        let test = try TestDatabase()
        try test.database.register(AutoViewTests.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        let ui = try test.connection()
        let database = test.database
        try await writer.readWrite { tx throws in try tx.setObject(2, forKey: "k2", inCollection: "n") }
        try await TestSupport.withTimeout { () async throws in
            var updates = ui.viewUpdates(ViewMappings(groups: ["even"], view: "numbers")).makeAsyncIterator()
            let first = try #require(try await updates.next())
            #expect(first.changes.isEmpty)
            #expect(first.mappings.numberOfItems(inGroup: "even") == 1)
            #expect(ui.isInLongLivedReadTransaction)

            // A commit elsewhere is no update; the next change to the view is.
            try await writer.readWrite { tx throws in try tx.setObject(1, forKey: "x", inCollection: "other") }
            try await writer.readWrite { tx throws in try tx.setObject(4, forKey: "k4", inCollection: "n") }
            let second = try #require(try await updates.next())
            #expect(second.changes.rowChanges.map(\.kind) == [.insert])
            #expect(second.mappings.numberOfItems(inGroup: "even") == 2)
            #expect(try Self.keys(ui) == ["k2", "k4"])

            // Two commits before the consumer asks come as one update, and a later write leaves
            // the connection where the update put it.
            try await writer.readWrite { tx throws in try tx.setObject(0, forKey: "k0", inCollection: "n") }
            try await writer.readWrite { tx throws in try tx.removeObject(forKey: "k4", inCollection: "n") }
            let third = try #require(try await updates.next())
            #expect(third.changes.rowChanges.count == 2)
            try await writer.readWrite { tx throws in try tx.setObject(6, forKey: "k6", inCollection: "n") }
            #expect(try Self.keys(ui) == ["k0", "k2"])
            #expect(third.mappings.numberOfItems(inGroup: "even") == 2)
            let fourth = try #require(try await updates.next())
            #expect(fourth.snapshot > third.snapshot)
            #expect(try Self.keys(ui) == ["k0", "k2", "k6"])

            try database.unregister(extensionNamed: "numbers")
            let fifth = try #require(try await updates.next())
            #expect(fifth.changes.isReset)

            try await database.close()
            #expect(try await updates.next() == nil)
        }
    }
}

/// A reader further behind than the kept changesets gets a reset for its views, and reads
/// them right afterwards.
@Suite struct ViewResetTests {
    @Test func aReaderTooFarBehindGetsAResetAndReadsTheViewRight() throws {
        let test = try TestDatabase()
        try test.database.register(AutoViewTests.numbers(persistent: true), withName: "numbers")
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx throws in try tx.setObject(2, forKey: "k2", inCollection: "n") }
        _ = try reader.beginLongLivedReadTransaction()
        #expect(try ViewUpdatesTests.keys(reader) == ["k2"])
        var mappings = ViewMappings(groups: ["even"], view: "numbers")
        mappings.update(groupCounts: ["even": 1])
        for value in 0...DatabaseState.retainedChangesetLimit {
            try writer.readWrite { tx throws in
                try tx.setObject(value % 2 == 0 ? 4 : 6, forKey: "k4", inCollection: "n")
            }
        }
        let changesets = try reader.beginLongLivedReadTransaction()
        let records = changesets.flatMap { $0.viewChangeRecords(inView: "numbers") }
        #expect(records.contains(.reset))
        let result = ViewChanges.advance(&mappings, groupCounts: ["even": 2], records: records)
        #expect(result.isReset)
        #expect(try ViewUpdatesTests.keys(reader) == ["k2", "k4"])
        #expect(mappings.numberOfItems(inGroup: "even") == 2)
    }
}
