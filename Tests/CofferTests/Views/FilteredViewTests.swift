import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// FilteredView's behaviour (YapDatabase's TestYapDatabaseFilteredView and more): following its
/// parent through every kind of write, chains, changing a filter or the parent's logic, and
/// long-lived readers, each persistent and in memory.
@Suite struct FilteredViewTests {
    /// Every integer of collection "n" in one group "", ascending; "keyX" stays out.
    static func order(persistent: Bool, tag: String = "1") -> AutoView {
        AutoView(
            grouping: .key { row, group in group = row.key == "keyX" ? nil : "" },
            sorting: .object(Int.self) { _, left, right in
                left.object < right.object
                    ? .orderedAscending : left.object > right.object ? .orderedDescending : .orderedSame
            },
            versionTag: tag, allowedCollections: .only(["n"]), isPersistent: persistent)
    }

    static func multiples(of divisor: Int) -> ViewFiltering {
        .object(Int.self) { _, row in row.object.isMultiple(of: divisor) }
    }

    static func filter(
        _ parent: String, _ divisor: Int, persistent: Bool, skip: Bool = false, tag: String = "1"
    ) -> FilteredView {
        FilteredView(
            parentViewName: parent, filtering: multiples(of: divisor), versionTag: tag,
            skipInitialViewPopulation: skip, isPersistent: persistent)
    }

    /// The integers of `group` of `view`, in order.
    static func values(_ connection: Connection, _ view: String, _ group: String = "") throws -> [Int] {
        try connection.read { tx in try values(tx, view, group) }
    }

    static func values(_ tx: ReadTransaction, _ view: String, _ group: String = "") throws -> [Int] {
        let transaction = try tx.extension(view, as: ViewTransaction.self)
        var values: [Int] = []
        try transaction.enumerateKeys(inGroup: group) { row, _, _ in
            values.append(try tx.object(forKey: row.key, inCollection: row.collection, as: Int.self) ?? -1)
        }
        return values
    }

    /// The rows of `group` of `view`, in order.
    static func keys(_ connection: Connection, _ view: String, _ group: String = "") throws -> [CollectionKey] {
        try connection.read { tx throws in
            var keys: [CollectionKey] = []
            try tx.extension(view, as: ViewTransaction.self).enumerateKeys(inGroup: group) { row, _, _ in
                keys.append(row)
            }
            return keys
        }
    }

    @Test(arguments: [true, false])
    func evensOfAHundredOnEveryConnection(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "filter")
        let writer = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx throws in
            #expect(tx.ext("filter") is FilteredViewTransaction)
            try tx.setObject(7, forKey: "keyX", inCollection: "n")
            for value in (0..<100).reversed() { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
            #expect(try tx.extension("order", as: ViewTransaction.self).numberOfItems(inGroup: "") == 100)
            #expect(try Self.values(tx, "filter") == Array(stride(from: 0, to: 100, by: 2)))
        }
        for connection in [writer, sibling] {
            #expect(try Self.values(connection, "order") == Array(0..<100))
            #expect(try Self.values(connection, "filter") == Array(stride(from: 0, to: 100, by: 2)))
            try connection.read { tx throws in
                #expect(try tx.extension("filter", as: FilteredViewTransaction.self).versionTag == "1")
            }
        }
    }

    @Test(arguments: [true, false], [true, false])
    func rowsOfTheParentAppearAtRegistrationUnlessSkipped(persistent: Bool, skip: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            for value in 0..<100 { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
        }
        try test.database.register(Self.filter("order", 2, persistent: persistent, skip: skip), withName: "filter")
        for connection in [writer, try test.connection()] {
            #expect(try Self.values(connection, "filter").count == (skip ? 0 : 50))
        }
    }

    @Test(arguments: [true, false])
    func changesOfTheParentReachTheFilterInTheSameTransaction(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "filter")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            for value in [1, 2, 3, 4, 6] { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        try writer.readWrite { tx throws in
            try tx.setObject(5, forKey: "k2", inCollection: "n")  // leaves the filter
            try tx.setObject(8, forKey: "k3", inCollection: "n")  // joins it, after k6
            try tx.setObject(0, forKey: "k6", inCollection: "n")  // moves to the front
            try tx.removeObject(forKey: "k4", inCollection: "n")
            #expect(try Self.values(tx, "filter") == [0, 8])
        }
        #expect(try Self.values(writer, "filter") == [0, 8])
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        try writer.readWrite { tx in try tx.touchObject(forKey: "k3", inCollection: "n") }
        let records = try reader.beginLongLivedReadTransaction().flatMap { $0.viewChangeRecords(inView: "filter") }
        #expect(records == [.updateRow(CollectionKey(collection: "n", key: "k3"), group: "", index: 1, parts: .object)])
        try writer.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
        #expect(try Self.values(writer, "filter") == [])
        #expect(try writer.read { tx in try tx.extension("filter", as: ViewTransaction.self).numberOfGroups() } == 0)
    }

    @Test(arguments: [true, false])
    func aChainFollowsItsMiddleFilterAndItsParentsGrouping(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "evens")
        try test.database.register(Self.filter("evens", 4, persistent: persistent), withName: "fours")
        let writer = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx throws in
            for value in 0..<200 { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
        }
        #expect(try Self.values(sibling, "evens").count == 100)
        #expect(try Self.values(sibling, "fours").count == 50)
        try writer.readWrite { tx throws in
            try tx.extension("evens", as: FilteredViewTransaction.self)
                .setFiltering(Self.multiples(of: 3), versionTag: "2")
        }
        for connection in [writer, sibling] {
            #expect(try Self.values(connection, "evens") == Array(stride(from: 0, to: 200, by: 3)))
            #expect(try Self.values(connection, "fours") == Array(stride(from: 0, to: 200, by: 12)))
        }
        try writer.readWrite { tx throws in
            try tx.extension("order", as: AutoViewTransaction.self).setGrouping(
                .object(Int.self) { row, group in group = row.object < 100 ? "low" : "high" },
                sorting: .object(Int.self) { _, left, right in
                    left.object > right.object
                        ? .orderedAscending : left.object < right.object ? .orderedDescending : .orderedSame
                }, versionTag: "2")
        }
        for connection in [writer, sibling, try test.connection()] {
            #expect(try Self.values(connection, "fours", "low") == Array(stride(from: 96, through: 0, by: -12)))
            #expect(try Self.values(connection, "fours", "high") == Array(stride(from: 192, through: 108, by: -12)))
            #expect(try Self.values(connection, "fours") == [])
        }
        // Later writes use the new logic everywhere down the chain.
        try sibling.readWrite { tx in try tx.setObject(1_200, forKey: "big", inCollection: "n") }
        #expect(try Self.values(writer, "fours", "high").first == 1_200)
    }

    @Test(arguments: [true, false])
    func setFilteringGivesAReaderOneChangesetWithEveryRowThatCameAndWent(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "filter")
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx throws in
            for value in 0..<100 { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
        }
        _ = try reader.beginLongLivedReadTransaction()
        var mappings = ViewMappings(groups: [""], view: "filter")
        mappings.update(
            groupCounts: try reader.read { tx throws in
                try tx.extension("filter", as: ViewTransaction.self).groupCounts()
            })
        try writer.readWrite { tx throws in
            try tx.extension("filter", as: FilteredViewTransaction.self).setFiltering(
                .object(Int.self) { _, row in !row.object.isMultiple(of: 2) }, versionTag: "odd")
        }
        var changesets = try reader.beginLongLivedReadTransaction()
        #expect(changesets.count == 1)
        var records = changesets.flatMap { $0.viewChangeRecords(inView: "filter") }
        var counts = try reader.read { tx in try tx.extension("filter", as: ViewTransaction.self).groupCounts() }
        var result = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
        #expect(result.rowChanges.filter { $0.kind == .delete }.count == 50)
        #expect(result.rowChanges.filter { $0.kind == .insert }.count == 50)
        #expect(try Self.values(reader, "filter") == Array(stride(from: 1, to: 100, by: 2)))

        try writer.readWrite { tx throws in
            try tx.extension("filter", as: FilteredViewTransaction.self).setFiltering(
                .key { _, _ in false }, versionTag: "none")
        }
        changesets = try reader.beginLongLivedReadTransaction()
        #expect(changesets.count == 1)
        records = changesets.flatMap { $0.viewChangeRecords(inView: "filter") }
        counts = try reader.read { tx in try tx.extension("filter", as: ViewTransaction.self).groupCounts() }
        result = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
        #expect(result.rowChanges.count == 50)
        #expect(result.rowChanges.allSatisfy { $0.kind == .delete })
        try reader.read { tx throws in
            #expect(try tx.extension("filter", as: ViewTransaction.self).versionTag == "none")
        }
    }

    @Test(arguments: [true, false])
    func aReaderSeesOnlyWhatAFilterOrAParentSortingChangeMoved(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "filter")
        let writer = try test.connection()
        let reader = try test.connection()
        try writer.readWrite { tx throws in
            for value in 0..<20 { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
        }
        _ = try reader.beginLongLivedReadTransaction()
        var shown = try Self.keys(reader, "filter")
        /// The reader's changes since its last snapshot, checked to lead from what it showed to what it shows.
        func advance() throws -> ViewChangeSet {
            var mappings = ViewMappings(groups: [""], view: "filter")
            mappings.update(groupCounts: ["": shown.count])
            let records = try reader.beginLongLivedReadTransaction().flatMap { $0.viewChangeRecords(inView: "filter") }
            let now = try Self.keys(reader, "filter")
            let result = ViewChanges.advance(&mappings, groupCounts: ["": now.count], records: records)
            #expect(
                try ViewChangesApplier.apply(sections: result.sectionChanges, rows: result.rowChanges, to: [shown]) == [
                    now
                ])
            shown = now
            return result
        }
        try writer.readWrite { tx throws in
            try tx.extension("filter", as: FilteredViewTransaction.self).setFiltering(
                Self.multiples(of: 4), versionTag: "4")
        }
        var result = try advance()
        #expect(result.rowChanges.count == 5)
        #expect(result.rowChanges.allSatisfy { $0.kind == .delete })
        try writer.readWrite { tx throws in
            try tx.extension("order", as: AutoViewTransaction.self).setSorting(
                .object(Int.self) { _, left, right in
                    left.object > right.object
                        ? .orderedAscending : left.object < right.object ? .orderedDescending : .orderedSame
                }, versionTag: "reversed")
        }
        result = try advance()
        #expect(result.rowChanges.count == 5)
        #expect(result.rowChanges.allSatisfy { $0.kind == .move })
        #expect(try Self.values(reader, "filter") == [16, 12, 8, 4, 0])
    }

    @Test(arguments: [true, false])
    func aRolledBackFilterChangeLeavesTheViewAndItsFilter(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "filter")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            for value in 0..<10 { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
        }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try writer.readWrite { tx throws in
                try tx.extension("filter", as: FilteredViewTransaction.self).setFiltering(
                    Self.multiples(of: 5), versionTag: "5")
                #expect(try Self.values(tx, "filter") == [0, 5])
                throw Abort()
            }
        }
        #expect(try Self.values(writer, "filter") == [0, 2, 4, 6, 8])
        try writer.readWrite { tx in try tx.setObject(12, forKey: "key12", inCollection: "n") }
        #expect(try Self.values(writer, "filter") == [0, 2, 4, 6, 8, 12])
        try writer.read { tx throws in
            #expect(try tx.extension("filter", as: FilteredViewTransaction.self).versionTag == "1")
            #expect(throws: DatabaseError.self) {
                try tx.extension("filter", as: FilteredViewTransaction.self).setFiltering(
                    Self.multiples(of: 5), versionTag: "5")
            }
        }
    }

    @Test(arguments: [true, false])
    func unregisteringTheParentUnregistersTheChain(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "evens")
        try test.database.register(Self.filter("evens", 4, persistent: persistent), withName: "fours")
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(4, forKey: "k4", inCollection: "n") }
        try test.database.unregister(extensionNamed: "order")
        try writer.read { tx throws in
            for name in ["order", "evens", "fours"] {
                #expect(tx.ext(name) == nil)
                #expect(try !tx.snapshotHasTable("view_\(name)_page"))
            }
        }
    }

    @Test(arguments: [true, false], [UInt64(41), 42])
    func aFilterOverAManualViewFollowsTheAppsOrder(persistent: Bool, seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        let test = try TestDatabase()
        try test.database.register(ManualView(isPersistent: persistent), withName: "manual")
        try test.database.register(Self.filter("manual", 2, persistent: persistent), withName: "evens")
        let writer = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx throws in
            for value in 0..<80 { try tx.setObject(value, forKey: "k\(value)", inCollection: "n") }
        }
        var model: [Int] = []  // the manual view's group "", as values
        for _ in 0..<20 {
            try writer.readWrite { tx throws in
                let manual = try tx.extension("manual", as: ManualViewTransaction.self)
                for _ in 0..<Int(random.next() % 12) {
                    let value = Int(random.next() % 80)
                    switch random.next() % 5 {
                    case 0...1 where !model.contains(value):
                        let index = Int(random.next() % UInt64(model.count + 1))
                        try manual.insertKey("k\(value)", inCollection: "n", at: index, inGroup: "")
                        model.insert(value, at: index)
                    case 2 where !model.isEmpty:
                        let index = Int(random.next() % UInt64(model.count))
                        _ = try manual.removeItem(at: index, inGroup: "")
                        model.remove(at: index)
                    case 3 where model.contains(value):
                        // An update the filter reads: the row may leave or join the filter.
                        try tx.setObject(value + 1, forKey: "k\(value)", inCollection: "n")
                        try tx.setObject(value, forKey: "k\(value)", inCollection: "n")
                    case 4 where random.next() % 10 == 0:
                        try manual.removeAllItems(inGroup: "")
                        model = []
                    default:
                        break
                    }
                }
            }
            for connection in [writer, sibling] {
                #expect(try Self.values(connection, "manual") == model)
                #expect(try Self.values(connection, "evens") == model.filter { $0.isMultiple(of: 2) })
            }
        }
    }

    @Test func aFilterOverSomethingThatIsNotAViewFailsToRegister() throws {
        let test = try TestDatabase()
        try test.database.register(Hooks(), withName: "hooks")
        #expect(throws: DatabaseError.self) {
            try test.database.register(Self.filter("hooks", 2, persistent: true), withName: "filter")
        }
        #expect(throws: DatabaseError.self) {
            try test.database.register(Self.filter("missing", 2, persistent: true), withName: "filter")
        }
    }

    @Test(arguments: [true, false], [UInt64(31), 32])
    func randomWritesKeepTheChainEqualToItsParentFiltered(persistent: Bool, seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        let test = try TestDatabase()
        try test.database.register(Self.order(persistent: persistent), withName: "order")
        try test.database.register(Self.filter("order", 2, persistent: persistent), withName: "evens")
        try test.database.register(Self.filter("evens", 3, persistent: persistent), withName: "sixes")
        let writer = try test.connection()
        let sibling = try test.connection()
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        var shown = try Self.keys(reader, "sixes")
        var model: [String: Int] = [:]
        for _ in 0..<25 {
            try writer.readWrite { tx throws in
                for _ in 0..<Int(random.next() % 30) {
                    let key = "k\(random.next() % 120)"
                    switch random.next() % 5 {
                    case 0...2:
                        let value = Int(random.next() % 300)
                        try tx.setObject(value, forKey: key, inCollection: "n")
                        model[key] = value
                    case 3:
                        try tx.touchObject(forKey: key, inCollection: "n")
                    default:
                        try tx.removeObject(forKey: key, inCollection: "n")
                        model[key] = nil
                    }
                }
            }
            let sorted = model.values.sorted()
            for connection in [writer, sibling] {
                #expect(try Self.values(connection, "order") == sorted)
                #expect(try Self.values(connection, "evens") == sorted.filter { $0.isMultiple(of: 2) })
                #expect(try Self.values(connection, "sixes") == sorted.filter { $0.isMultiple(of: 6) })
            }
            // The reader's changes, applied to what it showed, give what it shows now.
            var mappings = ViewMappings(groups: [""], view: "sixes")
            mappings.update(groupCounts: ["": shown.count])
            let records = try reader.beginLongLivedReadTransaction().flatMap { $0.viewChangeRecords(inView: "sixes") }
            let now = try Self.keys(reader, "sixes")
            let result = ViewChanges.advance(&mappings, groupCounts: ["": now.count], records: records)
            let applied = try ViewChangesApplier.apply(
                sections: result.sectionChanges, rows: result.rowChanges, to: [shown])
            #expect(applied == [now])
            shown = now
        }
    }
}

/// A persistent filtered view kept in the file is rebuilt when its parent was rebuilt since.
@Suite struct FilteredViewReopenTests {
    @Test(arguments: [true, false])
    func aParentRebuiltAtRegistrationRebuildsItsPersistentFilter(parentPersistent: Bool) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        do {
            let database = try TestSupport.open(url, options: options)
            try database.register(FilteredViewTests.order(persistent: parentPersistent), withName: "order")
            try database.register(FilteredViewTests.filter("order", 2, persistent: true), withName: "filter")
            try database.newConnection().readWrite { tx in
                for value in 0..<10 { try tx.setObject(value, forKey: "key\(value)", inCollection: "n") }
            }
        }
        do {
            // Rows written while nothing is registered, then the parent registered with a new tag.
            let database = try TestSupport.open(url, options: options)
            let writer = try database.newConnection()
            try writer.readWrite { tx in try tx.setObject(20, forKey: "key20", inCollection: "n") }
            try database.register(FilteredViewTests.order(persistent: parentPersistent, tag: "2"), withName: "order")
            try database.register(FilteredViewTests.filter("order", 2, persistent: true), withName: "filter")
            #expect(try FilteredViewTests.values(writer, "filter") == [0, 2, 4, 6, 8, 20])
        }
        // Reopened with nothing changed, a persistent pair keeps its pages.
        let database = try TestSupport.open(url, options: options)
        let writer = try database.newConnection()
        try database.register(FilteredViewTests.order(persistent: parentPersistent, tag: "2"), withName: "order")
        try database.register(FilteredViewTests.filter("order", 2, persistent: true), withName: "filter")
        #expect(try FilteredViewTests.values(writer, "filter") == [0, 2, 4, 6, 8, 20])
    }
}
