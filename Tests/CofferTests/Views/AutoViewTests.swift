import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// AutoView's behaviour: grouping, sorting, every kind of write, a second connection, pages,
/// long-lived readers and a model, each persistent and in memory.
@Suite struct AutoViewTests {
    /// Integers grouped by parity ("even", "odd"), sorted ascending; strings stay out.
    static func numbers(
        tag: String = "1", persistent: Bool = true, skipInitialViewPopulation: Bool = false
    ) -> AutoView {
        AutoView(
            grouping: .object(Int.self) { row, group in group = row.object.isMultiple(of: 2) ? "even" : "odd" },
            sorting: .object(Int.self) { _, left, right in
                left.object < right.object
                    ? .orderedAscending
                    : left.object > right.object ? .orderedDescending : .orderedSame
            },
            versionTag: tag, allowedCollections: .only(["n"]), skipInitialViewPopulation: skipInitialViewPopulation,
            isPersistent: persistent)
    }

    func view(_ tx: ReadTransaction) throws -> AutoViewTransaction {
        try tx.extension("numbers", as: AutoViewTransaction.self)
    }

    /// The keys of `group` in order.
    func keys(_ connection: Connection, _ group: String) throws -> [String] {
        try connection.read { tx in
            var keys: [String] = []
            try view(tx).enumerateKeys(inGroup: group) { row, index, _ in
                #expect(index == keys.count)
                keys.append(row.key)
            }
            return keys
        }
    }

    @Test(arguments: [true, false])
    func rowsAreGroupedAndSortedThroughEveryKindOfWrite(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx in
            for value in [5, 2, 9, 4, 1] { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
            try tx.setObject("text", forKey: "t", inCollection: "n")
            try tx.setObject(3, forKey: "elsewhere", inCollection: "other")
        }
        for connection in [writer, sibling] {
            #expect(try keys(connection, "odd") == ["k1", "k5", "k9"])
            #expect(try keys(connection, "even") == ["k2", "k4"])
            try connection.read { tx throws in
                #expect(try view(tx).groups() == ["even", "odd"])
                #expect(try view(tx).numberOfItemsInAllGroups() == 5)
                #expect(try view(tx).group(forKey: "t", inCollection: "n") == nil)
                #expect(try view(tx).index(forKey: "k9", inCollection: "n")?.index == 2)
                #expect(try view(tx).key(at: 1, inGroup: "even") == CollectionKey(collection: "n", key: "k4"))
            }
        }
        // An object change moves the row (here to the other group); metadata alone does not.
        try writer.readWrite { tx in
            try tx.replaceObject(6, forKey: "k5", inCollection: "n")
            try tx.replaceMetadata("note", forKey: "k9", inCollection: "n")
        }
        for connection in [writer, sibling] {
            #expect(try keys(connection, "odd") == ["k1", "k9"])
            #expect(try keys(connection, "even") == ["k2", "k4", "k5"])
        }
        try writer.readWrite { tx in
            try tx.removeObject(forKey: "k1", inCollection: "n")
            try tx.removeObjects(forKeys: ["k2", "k4"], inCollection: "n")
        }
        for connection in [writer, sibling] {
            #expect(try keys(connection, "odd") == ["k9"])
            #expect(try keys(connection, "even") == ["k5"])
        }
        try writer.readWrite { tx in try tx.removeAllObjects(inCollection: "n") }
        for connection in [writer, sibling] {
            try connection.read { tx throws in #expect(try view(tx).numberOfGroups() == 0) }
        }
        try writer.readWrite { tx in
            for value in [8, 7] { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        try writer.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        try writer.readWrite { tx in try tx.setObject(10, forKey: "k10", inCollection: "n") }
        for connection in [writer, sibling] {
            #expect(try keys(connection, "even") == ["k10"])
            #expect(try keys(connection, "odd") == [])
        }
    }

    /// Regression: the group queries read the layout the transaction began with, so a write
    /// did not see its own new groups and counts (and enumerated a new group as empty).
    @Test(arguments: [true, false])
    func aWriteSeesItsOwnGroupsAndCounts(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(2, forKey: "k2", inCollection: "n") }
        try writer.readWrite { tx in
            #expect(try view(tx).groups() == ["even"])
            try tx.setObject(1, forKey: "k1", inCollection: "n")
            try tx.setObject(4, forKey: "k4", inCollection: "n")
            try tx.removeObject(forKey: "k2", inCollection: "n")
            let view = try view(tx)
            #expect(try view.groups() == ["even", "odd"])
            #expect(try view.groupCounts() == ["even": 1, "odd": 1])
            #expect(try view.numberOfItems(inGroup: "odd") == 1)
            #expect(try view.numberOfItemsInAllGroups() == 2)
            var odd: [String] = []
            try view.enumerateKeys(inGroup: "odd") { row, _, _ in odd.append(row.key) }
            #expect(odd == ["k1"])
            try tx.removeObject(forKey: "k4", inCollection: "n")
            #expect(try view.groups() == ["odd"])
        }
        try writer.read { tx throws in #expect(try view(tx).groupCounts() == ["odd": 1]) }
    }

    @Test(arguments: [true, false])
    func rowsWrittenBeforeRegistrationAppearUnlessSkipped(persistent: Bool) throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in
            for value in (1...120).reversed() { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        #expect(try keys(writer, "even") == (1...60).map { "k\($0 * 2)" })
        let skipping = Self.numbers(persistent: persistent, skipInitialViewPopulation: true)
        try test.database.register(skipping, withName: "empty")
        try writer.read { tx throws in
            #expect(try tx.extension("empty", as: AutoViewTransaction.self).numberOfGroups() == 0)
        }
    }

    @Test(arguments: [true, false])
    func pagesSplitAndEmptyAcross150Rows(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        try writer.readWrite { tx in
            for value in stride(from: 2, through: 300, by: 2).shuffled() {
                try tx.setObject(value, forKey: "k\(value)", inCollection: "n")
            }
        }
        var expected = stride(from: 2, through: 300, by: 2).map { "k\($0)" }
        #expect(try keys(writer, "even") == expected)
        // A whole middle page's worth, then every fifth row one by one.
        try writer.readWrite { tx in
            for value in stride(from: 102, through: 200, by: 2) {
                try tx.removeObject(forKey: "k\(value)", inCollection: "n")
            }
        }
        expected.removeAll { Int($0.dropFirst()).map { (102...200).contains($0) } ?? false }
        #expect(try keys(writer, "even") == expected)
        for key in expected.enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) {
            try writer.readWrite { tx in try tx.removeObject(forKey: key, inCollection: "n") }
        }
        expected = expected.enumerated().filter { $0.offset % 5 != 0 }.map(\.element)
        #expect(try keys(writer, "even") == expected)
        let reopened = try test.connection()
        #expect(try keys(reopened, "even") == expected)
    }

    @Test(arguments: [true, false])
    func aLongLivedReaderGetsTheChangesBetweenItsSnapshots(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx in
            for value in [2, 4, 6] { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        _ = try reader.beginLongLivedReadTransaction()
        var mappings = ViewMappings(groups: ["even", "odd"], view: "numbers")
        mappings.isDynamicSectionForAllGroups = true  // an empty group has no section
        mappings.update(groupCounts: try reader.read { tx in try view(tx).groupCounts() })
        try writer.readWrite { tx in try tx.setObject(3, forKey: "k3", inCollection: "n") }
        try writer.readWrite { tx in try tx.removeObject(forKey: "k4", inCollection: "n") }
        // The reader still sees its snapshot.
        #expect(try keys(reader, "even") == ["k2", "k4", "k6"])
        let changesets = try reader.beginLongLivedReadTransaction()
        let records = changesets.flatMap { $0.viewChangeRecords(inView: "numbers") }
        let counts = try reader.read { tx in try view(tx).groupCounts() }
        let result = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
        #expect(result.sectionChanges.count == 1, "the odd group appeared")
        #expect(result.rowChanges.count == 2, "one insert, one delete")
        #expect(try keys(reader, "even") == ["k2", "k6"])
    }

    @Test(arguments: [true, false])
    func unregisteringDropsTheTables(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(1, forKey: "k1", inCollection: "n") }
        try test.database.unregister(extensionNamed: "numbers")
        try writer.read { tx throws in
            #expect(try !tx.snapshotHasTable("view_numbers_page"))
            #expect(try !tx.snapshotHasTable("view_numbers_map"))
            #expect(tx.ext("numbers") == nil)
        }
    }

    @Test(arguments: [true, false], [UInt64(11), 12])
    func randomWritesMatchASortedModel(persistent: Bool, seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        let test = try TestDatabase()
        try test.database.register(Self.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        let sibling = try test.connection()
        var model: [String: Int] = [:]
        for _ in 0..<30 {
            try writer.readWrite { tx in
                for _ in 0..<Int(random.next() % 40) {
                    let key = "k\(random.next() % 200)"
                    switch random.next() % 6 {
                    case 0...2:
                        let value = Int(random.next() % 1_000)
                        try tx.setObject(value, forKey: key, inCollection: "n")
                        model[key] = value
                    case 3:
                        try tx.touchObject(forKey: key, inCollection: "n")
                    case 4:
                        try tx.replaceMetadata(Int(random.next() % 5), forKey: key, inCollection: "n")
                    default:
                        try tx.removeObject(forKey: key, inCollection: "n")
                        model[key] = nil
                    }
                }
            }
            for connection in [writer, sibling] {
                for (group, parity) in [("even", 0), ("odd", 1)] {
                    let members = model.filter { $0.value % 2 == parity }
                    let values = try keys(connection, group).map { members[$0] ?? -1 }
                    #expect(values == members.values.sorted(), "\(group)")
                    #expect(values.count == members.count)
                }
            }
        }
    }
}

/// The typed and positional reads every view has, and enumeration of rows a page at a time.
@Suite struct ViewRowReadTests {
    @Test(arguments: [true, false])
    func firstLastTypedValuesAndRowsInOrder(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(AutoViewTests.numbers(persistent: persistent), withName: "numbers")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            for value in stride(from: 0, to: 260, by: 2) {
                try tx.setObject(value, forKey: "k\(value)", inCollection: "n", withMetadata: "m\(value)")
            }
        }
        try writer.read { tx throws in
            let view = try tx.extension("numbers", as: ViewTransaction.self)
            #expect(try view.firstKey(inGroup: "even")?.key == "k0")
            #expect(try view.lastKey(inGroup: "even")?.key == "k258")
            #expect(try view.firstKey(inGroup: "odd") == nil)
            #expect(try view.lastKey(inGroup: "odd") == nil)
            #expect(try view.object(at: 3, inGroup: "even", as: Int.self) == 6)
            #expect(try view.object(at: 3, inGroup: "even", as: String.self) == nil)
            #expect(try view.metadata(at: 3, inGroup: "even", as: String.self) == "m6")
            #expect(try view.object(at: 130, inGroup: "even", as: Int.self) == nil)
            let row = try #require(try view.row(at: 5, inGroup: "even"))
            #expect(row.key == "k10")
            #expect(try row.object.value(as: Int.self) == 10)
            #expect(try row.metadata.value(as: String.self) == "m10")
            #expect(try view.row(at: 130, inGroup: "even") == nil)
            var seen: [(Int, Int, String?)] = []
            try view.enumerateRows(inGroup: "even", from: 120, reverse: true) { row, index, _ in
                seen.append((index, try row.object.value(as: Int.self) ?? -1, try row.metadata.value(as: String.self)))
            }
            #expect(seen.count == 121)
            #expect(seen.allSatisfy { $0.1 == 2 * $0.0 && $0.2 == "m\($0.1)" })
            #expect(seen.map(\.0) == Array((0...120).reversed()))
            var forward: [Int] = []
            try view.enumerateKeys(inGroup: "even", from: 125) { _, index, stop in
                forward.append(index)
                stop = index == 127
            }
            #expect(forward == [125, 126, 127])
        }
    }
}
