import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The decoded rows a write keeps for its sorting (``TypedSortKeys``): they must order rows as
/// reading them again would, through writes that change or remove rows, reused rowids, page
/// splits, rollbacks and other connections' commits.
@Suite struct AutoViewSortKeysTests {
    /// Each row's object and metadata, by key.
    typealias Model = [String: (object: Int, metadata: Int)]

    /// Integers grouped by parity, sorted by their metadata (an `Int`); strings stay out.
    static func byMetadata(persistent: Bool) -> AutoView {
        AutoView(
            grouping: .object(Int.self) { row, group in group = row.object.isMultiple(of: 2) ? "even" : "odd" },
            sorting: .metadata(Int.self) { _, left, right in
                left.metadata < right.metadata
                    ? .orderedAscending : left.metadata > right.metadata ? .orderedDescending : .orderedSame
            },
            allowedCollections: .only(["n"]), isPersistent: persistent)
    }

    /// The keys of `group` in order, as `tx` sees them.
    func keys(_ tx: ReadTransaction, _ group: String) throws -> [String] {
        var keys: [String] = []
        try tx.extension("view", as: AutoViewTransaction.self).enumerateKeys(inGroup: group) { row, _, _ in
            keys.append(row.key)
        }
        return keys
    }

    /// The keys of `group` the model holds, in the order of their metadata.
    func expected(_ model: Model, _ group: String) -> [String] {
        let parity = group == "even" ? 0 : 1
        return model.filter { $0.value.object % 2 == parity }.sorted { $0.value.metadata < $1.value.metadata }
            .map(\.key)
    }

    @Test func aKeptRowIsReadOnceUntilForgotten() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        try connection.readWrite { tx throws in
            let keys = TypedSortKeys<Int>(
                transaction: tx, generationLimit: 4, wrap: { _, row in try #require(row.object.value() as? Int) },
                body: { _, left, right in
                    left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
                })
            var values: [Int64: Int] = [1: 10, 2: 20, 3: 30, 4: 40]
            var group: [Int64] = [1, 2, 3, 4]
            var loads: [Int64] = []
            func load(_ rowid: Int64) -> ExtensionRow {
                loads.append(rowid)
                return Self.row(rowid, values[rowid] ?? 0)
            }
            func place(_ rowid: Int64, _ value: Int) throws -> Int {
                values[rowid] = value
                let index = try keys.index(
                    of: Self.row(rowid, value), amongRows: group.count, inGroup: "g", rowidAt: { group[$0] },
                    load: load)
                group.insert(rowid, at: index)
                return index
            }
            // The last row first, then a binary search; each row read once.
            #expect(try place(9, 25) == 2)
            #expect(loads == [4, 2, 3])
            // The placed row is kept too; past the generation limit the older rows stay found.
            #expect(try place(10, 26) == 3)
            #expect(try place(11, 45) == 6)
            #expect(loads == [4, 2, 3])
            #expect(group == [1, 2, 9, 10, 3, 4, 11])
            // A forgotten row is read again, with its new value.
            values[3] = 99
            keys.forget(3)
            #expect(try !keys.sorts(Self.row(12, 60), after: 3, before: nil, inGroup: "g", load: load))
            #expect(loads == [4, 2, 3, 3])
            // A row placed in an empty group is not decoded, and what was kept under its rowid goes.
            #expect(
                try keys.index(of: Self.row(3, 5), amongRows: 0, inGroup: "h", rowidAt: { _ in 0 }, load: load) == 0)
            values[3] = 5
            #expect(try keys.sorts(Self.row(13, 1), after: nil, before: 3, inGroup: "h", load: load))
            #expect(loads == [4, 2, 3, 3, 3])
            // A row without neighbours is not decoded either.
            #expect(try keys.sorts(Self.row(14, 0), after: nil, before: nil, inGroup: "i", load: load))
        }
    }

    @Test func keptRowsStayFoundAcrossGenerationsUntilForgotten() {
        var kept = KeptSortRows<Int>(generationLimit: 100)
        var made: [Int64] = []
        func value(_ rowid: Int64) -> Int {
            kept.row(rowid) { rowid in
                made.append(rowid)
                return Int(rowid) * 10
            }
        }
        for rowid in Int64(1)...150 { #expect(value(rowid) == Int(rowid) * 10) }
        #expect(made == Array(1...150))
        // 1...100 went to the older generation: the last hundred rows are all still found, 51...100
        // moving back to the newer one.
        made = []
        for rowid in Int64(51)...150 { #expect(value(rowid) == Int(rowid) * 10) }
        #expect(made.isEmpty)
        #expect(kept.newer.count + kept.older.count <= 200)
        // A forgotten row is made again, the others not.
        for rowid in [Int64(60), 120] { kept.forget(rowid) }
        for rowid in Int64(51)...150 { #expect(value(rowid) == Int(rowid) * 10) }
        #expect(made == [60, 120])
        // Past two generations' worth of new rows, the first ones are made again.
        for rowid in Int64(1_000)...1_250 { _ = value(rowid) }
        made = []
        #expect(value(51) == 510 && made == [51])
        // Keeping a new value for a rowid replaces the old one.
        kept.keep(7, as: 1_100)
        #expect(value(1_100) == 7)
    }

    @Test(arguments: [true, false])
    func aReusedRowidIsSortedByItsNewRow(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.byMetadata(persistent: persistent), withName: "view")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            for (key, time) in [("a", 10), ("b", 20), ("c", 30)] {
                try tx.setObject(2, forKey: key, inCollection: "n", withMetadata: time)
            }
            let removed = try #require(try tx.rowid(for: CollectionKey(collection: "n", key: "c")))
            try tx.removeObject(forKey: "c", inCollection: "n")
            // SQLite gives the largest rowid again: "d", the first row of its group (so compared
            // with nothing), must then sort by its own time, not by c's.
            try tx.setObject(1, forKey: "d", inCollection: "n", withMetadata: 5)
            #expect(try tx.rowid(for: CollectionKey(collection: "n", key: "d")) == removed)
            try tx.setObject(1, forKey: "e", inCollection: "n", withMetadata: 25)
            try tx.setObject(2, forKey: "f", inCollection: "n", withMetadata: 27)
            #expect(try keys(tx, "odd") == ["d", "e"])
            #expect(try keys(tx, "even") == ["a", "b", "f"])
        }
        try writer.read { tx throws in
            #expect(try keys(tx, "odd") == ["d", "e"])
            #expect(try keys(tx, "even") == ["a", "b", "f"])
        }
    }

    @Test(arguments: [true, false], [UInt64(21), 22])
    func bulkWritesMatchASortedModel(persistent: Bool, seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        let test = try TestDatabase()
        try test.database.register(Self.byMetadata(persistent: persistent), withName: "view")
        let writer = try test.connection()
        let other = try test.connection()
        var model: Model = [:]
        var usedTimes: Set<Int> = []
        func time() -> Int {
            while true {
                let time = Int(random.next() % 1_000_000)
                if usedTimes.insert(time).inserted { return time }
            }
        }
        // The order of each group, and each row's group and index through the row → page map.
        func check(_ tx: ReadTransaction, _ model: Model) throws {
            let view = try tx.extension("view", as: AutoViewTransaction.self)
            for group in ["even", "odd"] {
                let order = expected(model, group)
                #expect(try keys(tx, group) == order, "\(group)")
                for (index, key) in order.enumerated() {
                    let found = try view.index(forKey: key, inCollection: "n")
                    #expect(found?.group == group && found?.index == index, "\(key)")
                }
            }
        }
        // Random writes in one transaction each, with sizes that split pages many times over.
        func randomWrites(_ tx: ReadWriteTransaction, count: Int, into model: inout Model) throws {
            for _ in 0..<count {
                let key = "k\(random.next() % 900)"
                switch random.next() % 10 {
                case 0...5:
                    let row = (object: Int(random.next() % 100), metadata: time())
                    try tx.setObject(row.object, forKey: key, inCollection: "n", withMetadata: row.metadata)
                    model[key] = row
                case 6:
                    guard model[key] != nil else { continue }
                    let metadata = time()
                    try tx.replaceMetadata(metadata, forKey: key, inCollection: "n")
                    model[key]?.metadata = metadata
                case 7:
                    try tx.touchMetadata(forKey: key, inCollection: "n")
                case 8:
                    guard let row = model[key] else { continue }
                    // A new object alone moves the row to the other group, by the same time.
                    try tx.replaceObject(row.object + 1, forKey: key, inCollection: "n")
                    model[key]?.object = row.object + 1
                default:
                    try tx.removeObject(forKey: key, inCollection: "n")
                    model[key] = nil
                }
            }
        }
        try writer.readWrite { tx throws in
            try randomWrites(tx, count: 1_500, into: &model)
            try check(tx, model)
        }
        try writer.read { tx throws in try check(tx, model) }
        // A rolled-back write leaves no trace, neither in the view nor in what the next write compares.
        try writer.readWrite { tx throws in
            var discarded = model
            try randomWrites(tx, count: 300, into: &discarded)
            try check(tx, discarded)
            tx.rollback()
        }
        try writer.read { tx throws in try check(tx, model) }
        // Another connection changes rows; the writer's next inserts compare with their new values.
        for round in 0..<3 {
            let (first, second) = round.isMultiple(of: 2) ? (other, writer) : (writer, other)
            try first.readWrite { tx throws in try randomWrites(tx, count: 200, into: &model) }
            try second.readWrite { tx throws in
                try randomWrites(tx, count: 200, into: &model)
                try check(tx, model)
            }
            for connection in [writer, other] { try connection.read { tx throws in try check(tx, model) } }
        }
    }

    @Test func aWriteThatSortedRowsReleasesItsTransaction() throws {
        let test = try TestDatabase()
        try test.database.register(Self.byMetadata(persistent: true), withName: "view")
        let writer = try test.connection()
        weak var released: ReadWriteTransaction?
        try writer.readWrite { tx throws in
            released = tx
            for value in 0..<20 { try tx.setObject(2, forKey: "k\(value)", inCollection: "n", withMetadata: value) }
        }
        #expect(released == nil)
    }

    /// A row with `value` as object, as the sort keys see it.
    static func row(_ rowid: Int64, _ value: Int) -> ExtensionRow {
        ExtensionRow(
            collectionKey: CollectionKey(collection: "n", key: "k\(rowid)"), rowid: rowid, object: LazyValue(value),
            metadata: LazyValue(nil))
    }
}
