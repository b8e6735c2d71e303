import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Changing an AutoView's grouping and sorting inside a transaction: what a long-lived reader
/// gets (YapDatabase's testChangeBlocks and testChangeSortBlock, with their counts), the
/// commit's notification, every connection's later writes, rollback, and the version tag at the
/// next registration.
@Suite struct AutoViewSetGroupingTests {
    static func compareNumbers(_ left: Int, _ right: Int) -> ComparisonResult {
        left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    }

    static let ascending = ViewSorting.object(Int.self) { _, left, right in compareNumbers(left.object, right.object) }
    static let descending = ViewSorting.object(Int.self) { _, left, right in compareNumbers(right.object, left.object) }
    static let evensOnly = ViewGrouping.object(Int.self) { row, group in
        group = row.object.isMultiple(of: 2) ? "" : nil
    }
    static let everything = ViewGrouping.object(Int.self) { _, group in group = "" }
    static let nothing = ViewGrouping.object(Int.self) { _, group in group = nil }

    /// YapDatabase's setup: even numbers in the group "", ascending; `key-0` to `key-9` hold 0 to 9.
    static func setUp(persistent: Bool) throws -> (TestDatabase, writer: Connection, reader: Connection) {
        let test = try TestDatabase()
        let autoView = AutoView(grouping: evensOnly, sorting: ascending, versionTag: "1", isPersistent: persistent)
        try test.database.register(autoView, withName: "order")
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx in
            for value in 0..<10 { try tx.setObject(value, forKey: "key-\(value)", inCollection: nil) }
        }
        try writer.read { tx throws in #expect(try view(tx).numberOfItems(inGroup: "") == 5) }
        return (test, writer, reader)
    }

    static func view(_ tx: ReadTransaction) throws -> AutoViewTransaction {
        try tx.extension("order", as: AutoViewTransaction.self)
    }

    /// The keys of group "" as `connection` sees them.
    static func keys(_ connection: Connection) throws -> [CollectionKey] {
        try connection.read { tx in
            var keys: [CollectionKey] = []
            try view(tx).enumerateKeys(inGroup: "") { row, _, _ in keys.append(row) }
            return keys
        }
    }

    static func keys(_ values: [Int]) -> [CollectionKey] {
        values.map { CollectionKey(collection: "", key: "key-\($0)") }
    }

    /// A long-lived reader of group "" (one section, shown even when empty, as YapDatabase's
    /// mappings of one group): each call moves it to the latest commit and returns the changes,
    /// after checking that they turn the list it showed into the one it shows.
    final class Reader {
        let connection: Connection
        var mappings = ViewMappings(groups: [""], view: "order")
        var shown: [[CollectionKey]]

        init(_ connection: Connection) throws {
            self.connection = connection
            _ = try connection.beginLongLivedReadTransaction()
            mappings.update(groupCounts: try connection.read { tx in try view(tx).groupCounts() })
            shown = [try keys(connection)]
        }

        func advance(sourceLocation: SourceLocation = #_sourceLocation) throws -> ViewChangeSet {
            let records = try connection.beginLongLivedReadTransaction().flatMap {
                $0.viewChangeRecords(inView: "order")
            }
            let counts = try connection.read { tx in try view(tx).groupCounts() }
            let changes = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
            let now = [try keys(connection)]
            let applied = try ViewChangesApplier.apply(
                sections: changes.sectionChanges, rows: changes.rowChanges, to: shown)
            #expect(applied == now, "\(changes)", sourceLocation: sourceLocation)
            shown = now
            return changes
        }
    }

    @Test(arguments: [true, false])
    func aNewGroupingGivesAReaderTenRowChangesAndNoSectionChange(persistent: Bool) throws {
        let (_, writer, readerConnection) = try Self.setUp(persistent: persistent)
        let reader = try Reader(readerConnection)
        try writer.readWrite { tx in
            try Self.view(tx).setGrouping(Self.everything, sorting: Self.ascending, versionTag: "2")
        }
        let changes = try reader.advance()
        #expect(changes.sectionChanges.count == 0)
        #expect(changes.rowChanges.count == 10)
        #expect(try Self.keys(readerConnection) == Self.keys(Array(0..<10)))
    }

    @Test(arguments: [true, false])
    func aNewSortingGivesAReaderFiveRowChangesAndNoSectionChange(persistent: Bool) throws {
        let (_, writer, readerConnection) = try Self.setUp(persistent: persistent)
        let reader = try Reader(readerConnection)
        try writer.readWrite { tx in try Self.view(tx).setSorting(Self.descending, versionTag: "2") }
        let changes = try reader.advance()
        #expect(changes.sectionChanges.count == 0)
        #expect(changes.rowChanges.count == 5)
        #expect(try Self.keys(readerConnection) == Self.keys([8, 6, 4, 2, 0]))
    }

    /// Each change is one commit, one notification and one set of records, also when the view
    /// ends up empty and when it fills again from empty.
    @Test(arguments: [true, false])
    func eachChangeOfLogicIsOneNotification(persistent: Bool) throws {
        let (test, writer, readerConnection) = try Self.setUp(persistent: persistent)
        let reader = try Reader(readerConnection)
        let recorder = NotificationRecorder(test.database)
        let start = test.database.snapshot
        let steps: [(grouping: ViewGrouping, sorting: ViewSorting, rows: [Int], kinds: [ViewRowChange.Kind: Int])] = [
            (Self.everything, Self.ascending, Array(0..<10), [.move: 5, .insert: 5]),
            (Self.everything, Self.descending, (0..<10).reversed(), [.move: 10]),
            (Self.nothing, Self.descending, [], [.delete: 10]),
            (Self.evensOnly, Self.ascending, [0, 2, 4, 6, 8], [.insert: 5]),
        ]
        for (number, step) in steps.enumerated() {
            try writer.readWrite { tx in
                try Self.view(tx).setGrouping(step.grouping, sorting: step.sorting, versionTag: "v\(number)")
            }
            let snapshot = test.database.snapshot
            #expect(snapshot == start + UInt64(number) + 1)
            let changeset = try #require(recorder.changeset(snapshot: snapshot))
            #expect(recorder.changesets.filter { $0.snapshot == snapshot }.count == 1)
            #expect(changeset.hasChanges(inView: "order"), "step \(number)")
            let changes = try reader.advance()
            #expect(changes.sectionChanges.isEmpty, "step \(number)")
            let kinds = Dictionary(grouping: changes.rowChanges, by: \.kind).mapValues(\.count)
            #expect(kinds == step.kinds, "step \(number)")
            for connection in [writer, readerConnection, try test.connection()] {
                #expect(try Self.keys(connection) == Self.keys(step.rows), "step \(number)")
            }
        }
        #expect(recorder.wait(forCount: steps.count))
        #expect(recorder.changesets(after: start).count == steps.count)
    }

    /// A change of logic that leaves an empty view empty changes no row a reader shows, and
    /// still takes: its tag is recorded and later writes use it.
    @Test(arguments: [true, false])
    func aChangeOfLogicOverAnEmptyViewStillTakes(persistent: Bool) throws {
        let (test, writer, sibling) = try Self.setUp(persistent: persistent)
        try writer.readWrite { tx in
            try Self.view(tx).setGrouping(Self.nothing, sorting: Self.ascending, versionTag: "2")
        }
        let reader = try Reader(try test.connection())
        let recorder = NotificationRecorder(test.database)
        let start = test.database.snapshot
        try writer.readWrite { tx in
            try Self.view(tx).setGrouping(Self.everything, sorting: Self.descending, versionTag: "3")
            try Self.view(tx).setGrouping(Self.nothing, sorting: Self.descending, versionTag: "4")
        }
        // At most one notification (a persistent view's commit changed only the tag's row, and
        // is not announced), and nothing for a reader to show.
        _ = recorder.wait(forCount: 1, timeout: .milliseconds(200))
        #expect(recorder.changesets(after: start).count <= 1)
        #expect(try reader.advance().isEmpty)
        try sibling.readWrite { tx in try tx.setObject(12, forKey: "key-12", inCollection: nil) }
        for connection in [writer, sibling, try test.connection()] {
            #expect(try Self.keys(connection) == [])
            try connection.read { tx throws in
                #expect(try Self.view(tx).versionTag == "4")
                if persistent {
                    #expect(try tx.yapString(extension: "order", key: ExtensionRecord.versionTagKey) == "4")
                }
            }
        }
    }

    /// The new logic places the rows that later writes make, whichever connection writes,
    /// including one opened after the change.
    @Test(arguments: [true, false])
    func laterWritesOnEveryConnectionUseTheNewLogic(persistent: Bool) throws {
        let (test, writer, sibling) = try Self.setUp(persistent: persistent)
        #expect(try Self.keys(sibling) == Self.keys([0, 2, 4, 6, 8]))
        let small = ViewGrouping.object(Int.self) { row, group in group = row.object < 100 ? "" : nil }
        try writer.readWrite { tx in try Self.view(tx).setGrouping(small, sorting: Self.descending, versionTag: "2") }
        try sibling.readWrite { tx in
            try tx.setObject(11, forKey: "key-11", inCollection: nil)
            try tx.setObject(500, forKey: "key-500", inCollection: nil)
        }
        let newcomer = try test.connection()
        try newcomer.readWrite { tx in
            try tx.setObject(-1, forKey: "key--1", inCollection: nil)
            try tx.replaceObject(13, forKey: "key-3", inCollection: nil)
        }
        try writer.readWrite { tx in try tx.setObject(12, forKey: "key-12", inCollection: nil) }
        let expected = Self.keys([3, 12, 11, 9, 8, 7, 6, 5, 4, 2, 1, 0, -1])
        for connection in [writer, sibling, newcomer, try test.connection()] {
            #expect(try Self.keys(connection) == expected)
            try connection.read { tx throws in #expect(try Self.view(tx).versionTag == "2") }
        }
    }

    /// A rolled-back change leaves the old logic, tag and rows on every connection, and the
    /// next write still uses the old logic.
    @Test(arguments: [true, false])
    func aRolledBackChangeKeepsTheOldLogicAndRows(persistent: Bool) throws {
        let (test, writer, sibling) = try Self.setUp(persistent: persistent)
        try writer.readWrite { tx in
            try Self.view(tx).setGrouping(Self.everything, sorting: Self.descending, versionTag: "2")
            #expect(try Self.view(tx).numberOfItems(inGroup: "") == 10)
            #expect(try Self.view(tx).versionTag == "2")
            tx.rollback()
        }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try writer.readWrite { tx in
                try Self.view(tx).setSorting(Self.descending, versionTag: "3")
                throw Abort()
            }
        }
        for connection in [writer, sibling] {
            #expect(try Self.keys(connection) == Self.keys([0, 2, 4, 6, 8]))
            try connection.read { tx throws in
                #expect(try Self.view(tx).versionTag == "1")
                if persistent {
                    #expect(try tx.yapString(extension: "order", key: ExtensionRecord.versionTagKey) == "1")
                }
            }
        }
        try sibling.readWrite { tx in
            try tx.setObject(10, forKey: "key-10", inCollection: nil)
            try tx.setObject(11, forKey: "key-11", inCollection: nil)
        }
        for connection in [writer, sibling, try test.connection()] {
            #expect(try Self.keys(connection) == Self.keys([0, 2, 4, 6, 8, 10]))
        }
    }

    @Test(arguments: [true, false])
    func changingTheLogicInAReadOnlyTransactionIsMisuse(persistent: Bool) throws {
        let (_, writer, _) = try Self.setUp(persistent: persistent)
        try writer.read { tx throws in
            let view = try Self.view(tx)
            let grouping = #expect(throws: DatabaseError.self) {
                try view.setGrouping(Self.everything, sorting: Self.ascending, versionTag: "2")
            }
            #expect(grouping?.code == .misuse)
            let sorting = #expect(throws: DatabaseError.self) { try view.setSorting(Self.descending, versionTag: "2") }
            #expect(sorting?.code == .misuse)
            #expect(try view.versionTag == "1")
        }
        #expect(try Self.keys(writer) == Self.keys([0, 2, 4, 6, 8]))
    }
}

extension AutoViewSetGroupingTests {
    /// Parity groups ("even", "odd") in collection "n", sorted by `sorting`, counting the
    /// grouping's calls in `calls`.
    static func counted(_ calls: Locked<Int>, sorting: ViewSorting, tag: String) -> AutoView {
        AutoView(
            grouping: .object(Int.self) { row, group in
                calls.withLock { $0 += 1 }
                group = row.object.isMultiple(of: 2) ? "even" : "odd"
            },
            sorting: sorting, versionTag: tag, allowedCollections: .only(["n"]))
    }

    static func keys(_ connection: Connection, _ group: String) throws -> [String] {
        try connection.read { tx in
            var keys: [String] = []
            try view(tx, "numbers").enumerateKeys(inGroup: group) { row, _, _ in keys.append(row.key) }
            return keys
        }
    }

    static func view(_ tx: ReadTransaction, _ name: String) throws -> AutoViewTransaction {
        try tx.extension(name, as: AutoViewTransaction.self)
    }

    /// A persistent view whose sorting a transaction changed keeps its pages when registered at
    /// the next launch with the new tag, and is rebuilt with the logic given when registered
    /// with the old one.
    @Test func theRecordedTagDecidesWhetherTheNextRegistrationRebuilds() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(Self.counted(Locked(0), sorting: Self.ascending, tag: "1"), withName: "numbers")
            let writer = try database.newConnection()
            try writer.readWrite { tx in
                for value in 1...6 { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
            }
            try writer.readWrite { tx in try Self.view(tx, "numbers").setSorting(Self.descending, versionTag: "2") }
            #expect(try Self.keys(writer, "odd") == ["k5", "k3", "k1"])
        }
        do {
            // Registered with the tag the change recorded: the pages are kept, nothing is grouped again.
            let calls = Locked(0)
            let database = try TestSupport.open(url, options: options)
            try database.register(Self.counted(calls, sorting: Self.descending, tag: "2"), withName: "numbers")
            let writer = try database.newConnection()
            #expect(try Self.keys(writer, "odd") == ["k5", "k3", "k1"])
            #expect(try Self.keys(writer, "even") == ["k6", "k4", "k2"])
            #expect(calls.value == 0, "the view was rebuilt")
            try writer.readWrite { tx in try tx.setObject(7, forKey: "k7", inCollection: "n") }
            #expect(try Self.keys(writer, "odd") == ["k7", "k5", "k3", "k1"])
            try writer.read { tx throws in #expect(try Self.view(tx, "numbers").versionTag == "2") }
        }
        // Registered with the old tag: rebuilt with the old logic.
        let calls = Locked(0)
        let database = try TestSupport.open(url, options: options)
        try database.register(Self.counted(calls, sorting: Self.ascending, tag: "1"), withName: "numbers")
        let writer = try database.newConnection()
        #expect(try Self.keys(writer, "odd") == ["k1", "k3", "k5", "k7"])
        #expect(try Self.keys(writer, "even") == ["k2", "k4", "k6"])
        #expect(calls.value == 7)
        try writer.read { tx throws in
            #expect(try Self.view(tx, "numbers").versionTag == "1")
            #expect(try tx.yapString(extension: "numbers", key: ExtensionRecord.versionTagKey) == "1")
        }
    }
}
