import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Random commits to an AutoView over three collections (one the view does not allow) —
/// inserts, object and metadata updates, touches, removes, remove-alls and changes of grouping
/// and sorting, some rolled back — checked after every commit against a plain grouping and
/// sorting of the same rows, on both writing connections; and a long-lived reader whose
/// consolidated changes, applied to the list it showed, give the list it shows next. A
/// FilteredView over the view, whose filter changes too, must show the view's rows it keeps.
@Suite struct AutoViewPropertyTests {
    /// One row of the model: an `Int` object and optional `Int` metadata.
    struct Row: Hashable {
        var collection: String
        var key: String
        var object: Int
        var metadata: Int?
    }

    static let collections = ["a", "b", "c"]
    /// Keys per collection: enough for a group to outgrow a page.
    static let keyCount = 120
    static let allowed: Set<String> = ["a", "b"]
    /// Every group any grouping makes, for the reader's mappings.
    static let allGroups = ["c-a", "c-b", "even", "m0", "m1", "m2", "none", "odd", "s0", "s1"]

    // MARK: The logic, as plain functions the view's closures and the model share

    static func group(_ grouping: Int, _ row: Row) -> String? {
        switch grouping {
        case 0: row.object.isMultiple(of: 5) ? nil : row.object.isMultiple(of: 2) ? "even" : "odd"
        case 1: row.metadata.map { "m\($0 % 3)" }
        case 2: row.key.hasSuffix("3") ? nil : "c-\(row.collection)"
        default: row.metadata.map { ($0 + row.object).isMultiple(of: 2) ? "s0" : "s1" } ?? "none"
        }
    }

    /// A total order for each sorting (ties broken by collection and key, so the model's order is the view's).
    static func compare(_ sorting: Int, _ left: Row, _ right: Row) -> ComparisonResult {
        let byKey = compare((left.collection, left.key), (right.collection, right.key))
        switch sorting {
        case 0: return compare(left.object, right.object).or(byKey)
        case 1: return compare(right.object, left.object).or(byKey)
        case 2:
            return compare(left.metadata ?? -1, right.metadata ?? -1).or(compare(right.object, left.object)).or(byKey)
        default: return compare((right.collection, right.key), (left.collection, left.key))
        }
    }

    static func compare<T: Comparable>(_ left: T, _ right: T) -> ComparisonResult {
        left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    }

    static func compare(_ left: (String, String), _ right: (String, String)) -> ComparisonResult {
        compare(left.0, right.0).or(compare(left.1, right.1))
    }

    /// Each grouping as the view runs it: it reads only what its kind gives it.
    static func grouping(_ variant: Int) -> ViewGrouping {
        switch variant {
        case 0:
            .object(Int.self) { row, group in group = Self.group(0, Row(collection: "", key: "", object: row.object)) }
        case 1:
            .metadata(Int.self) { row, group in
                group = Self.group(1, Row(collection: "", key: "", object: 0, metadata: row.metadata))
            }
        case 2: .key { row, group in group = Self.group(2, Row(collection: row.collection, key: row.key, object: 0)) }
        default:
            .row(Int.self, Int.self) { row, group in
                group = Self.group(3, Row(collection: "", key: "", object: row.object, metadata: row.metadata))
            }
        }
    }

    static func sorting(_ variant: Int) -> ViewSorting {
        switch variant {
        case 0, 1:
            .object(Int.self) { _, left, right in
                compare(
                    variant, Row(collection: left.collection, key: left.key, object: left.object),
                    Row(collection: right.collection, key: right.key, object: right.object))
            }
        case 2:
            .row(Int.self, Int.self) { _, left, right in
                compare(
                    2, Row(collection: left.collection, key: left.key, object: left.object, metadata: left.metadata),
                    Row(collection: right.collection, key: right.key, object: right.object, metadata: right.metadata))
            }
        default:
            .key { _, left, right in
                compare(
                    3, Row(collection: left.collection, key: left.key, object: 0),
                    Row(collection: right.collection, key: right.key, object: 0))
            }
        }
    }

    /// Whether each filter keeps `row` of `group` (typed filters leave out rows without their type).
    static func keeps(_ filtering: Int, _ group: String, _ row: Row) -> Bool {
        switch filtering {
        case 0: !row.object.isMultiple(of: 3)
        case 1: row.metadata.map { $0.isMultiple(of: 2) || group == "odd" } ?? false
        default: !row.key.hasSuffix("1")
        }
    }

    static func filtering(_ variant: Int) -> ViewFiltering {
        switch variant {
        case 0: .object(Int.self) { group, row in keeps(0, group, Row(collection: "", key: "", object: row.object)) }
        case 1:
            .metadata(Int.self) { group, row in
                keeps(1, group, Row(collection: "", key: "", object: 0, metadata: row.metadata))
            }
        default: .key { group, row in keeps(2, group, Row(collection: row.collection, key: row.key, object: 0)) }
        }
    }

    // MARK: The model

    struct Model {
        var rows: [CollectionKey: Row] = [:]
        var grouping = 0
        var sorting = 0
        var filtering = 0

        /// The view's groups (non-empty ones only) and their rows in order.
        var view: [String: [CollectionKey]] {
            var groups: [String: [Row]] = [:]
            for row in rows.values where AutoViewPropertyTests.allowed.contains(row.collection) {
                if let group = AutoViewPropertyTests.group(grouping, row) { groups[group, default: []].append(row) }
            }
            return groups.mapValues { rows in
                rows.sorted { AutoViewPropertyTests.compare(sorting, $0, $1) == .orderedAscending }
                    .map { CollectionKey(collection: $0.collection, key: $0.key) }
            }
        }

        /// The filtered view's groups: the view's rows the filter keeps, in the view's order.
        var filtered: [String: [CollectionKey]] {
            view.compactMapValues { keys -> [CollectionKey]? in
                let kept = keys.filter { ck in
                    rows[ck].map {
                        AutoViewPropertyTests.keeps(filtering, AutoViewPropertyTests.groupName(of: $0, in: self), $0)
                    } ?? false
                }
                return kept.isEmpty ? nil : kept
            }
        }
    }

    /// The group `row` is in, by `model`'s grouping.
    static func groupName(of row: Row, in model: Model) -> String {
        group(model.grouping, row) ?? ""
    }

    /// The groups and rows of the view `name` as `connection` sees them.
    static func view(_ connection: Connection, _ name: String = "v") throws -> [String: [CollectionKey]] {
        try connection.read { tx in
            let view = try tx.extension(name, as: ViewTransaction.self)
            var result: [String: [CollectionKey]] = [:]
            for group in try view.groups() {
                var keys: [CollectionKey] = []
                try view.enumerateKeys(inGroup: group) { row, _, _ in keys.append(row) }
                result[group] = keys
            }
            #expect(try view.groupCounts() == result.mapValues(\.count))
            return result
        }
    }
}

extension ComparisonResult {
    /// This result, or `next` when this one is a tie.
    fileprivate func or(_ next: @autoclosure () -> ComparisonResult) -> ComparisonResult {
        self == .orderedSame ? next() : self
    }
}

extension AutoViewPropertyTests {
    @Test("random commits match the model and a reader's changes (fixed seeds)", arguments: [true, false])
    func fixedSeeds(persistent: Bool) throws {
        for seed: UInt64 in (1...6).map({ 0xA070_0000 + $0 }) {
            if let failure = try Self.check(seed: seed, persistent: persistent) {
                Issue.record("seed \(seed), persistent \(persistent): \(failure)")
                return
            }
        }
    }

    @Test("random commits match the model and a reader's changes (random seed)", arguments: [true, false])
    func randomSeed(persistent: Bool) throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        if let failure = try Self.check(seed: seed, persistent: persistent) {
            Issue.record("seed \(seed), persistent \(persistent): \(failure)")
        }
    }

    /// Runs one random scenario of `commits` commits; returns what went wrong first, or nil.
    static func check(seed: UInt64, persistent: Bool, commits: Int = 40) throws -> String? {
        var random = SeededGenerator(seed: seed)
        var model = Model(
            grouping: Int.random(in: 0..<4, using: &random), sorting: Int.random(in: 0..<4, using: &random))
        let test = try TestDatabase()
        let autoView = AutoView(
            grouping: grouping(model.grouping), sorting: sorting(model.sorting), versionTag: "0",
            allowedCollections: .only(allowed), isPersistent: persistent)
        try test.database.register(autoView, withName: "v")
        model.filtering = Int.random(in: 0..<3, using: &random)
        try test.database.register(
            FilteredView(parentViewName: "v", filtering: filtering(model.filtering), isPersistent: persistent),
            withName: "f")
        let writers = [try test.connection(), try test.connection()]
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        var mappings = ViewMappings(groups: allGroups, view: "v")
        mappings.isDynamicSectionForAllGroups = Bool.random(using: &random)
        mappings.update(groupCounts: try view(reader).mapValues(\.count))
        var shown = ViewChangesPropertyTests.shownRows([:], mappings)
        var tag = 0

        for commit in 0..<commits {
            var next = model
            let rollback = Int.random(in: 0..<12, using: &random) == 0
            var log: [String] = []
            try writers[Int.random(in: 0..<2, using: &random)].readWrite { tx in
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    log.append(try randomWrite(tx, &next, &tag, using: &random))
                }
                if rollback { tx.rollback() }
            }
            if !rollback { model = next }
            let context = "commit \(commit)\(rollback ? " (rolled back)" : ""): \(log)"
            let expected = model.view
            for (index, writer) in writers.enumerated() {
                let actual = try view(writer)
                if actual != expected { return "\(context): connection \(index) shows \(actual), expected \(expected)" }
                let filtered = try view(writer, "f")
                if filtered != model.filtered {
                    return "\(context): connection \(index) filters \(filtered), expected \(model.filtered)"
                }
            }

            guard Int.random(in: 0..<3, using: &random) == 0 || commit == commits - 1 else { continue }
            let records = try reader.beginLongLivedReadTransaction().flatMap { $0.viewChangeRecords(inView: "v") }
            let now = try view(reader)
            if now != expected { return "\(context): the reader shows \(now), expected \(expected)" }
            let changes = ViewChanges.advance(&mappings, groupCounts: now.mapValues(\.count), records: records)
            let nowShown = ViewChangesPropertyTests.shownRows(now, mappings)
            do {
                let applied = try ViewChangesApplier.apply(
                    sections: changes.sectionChanges, rows: changes.rowChanges, to: shown)
                if applied != nowShown {
                    return "\(context): applying \(changes) to \(shown) gave \(applied), expected \(nowShown)"
                }
            } catch {
                return "\(context): \(error) applying \(changes) to \(shown); records \(records)"
            }
            shown = nowShown
        }
        return nil
    }

    /// One random write through `tx`, applied to `model` too; returns what it did.
    static func randomWrite(
        _ tx: ReadWriteTransaction, _ model: inout Model, _ tag: inout Int, using random: inout SeededGenerator
    ) throws -> String {
        // Half the time a row that exists (in a stable order, so the seed replays), else any key.
        let existing = model.rows.keys.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
        let ck =
            !existing.isEmpty && Bool.random(using: &random)
            ? existing[Int.random(in: 0..<existing.count, using: &random)]
            : CollectionKey(
                collection: collections[Int.random(in: 0..<collections.count, using: &random)],
                key: "k\(Int.random(in: 0..<keyCount, using: &random))")
        let (collection, key) = (ck.collection, ck.key)
        let object = Int.random(in: 0..<30, using: &random)
        let metadata = Int.random(in: 0..<4, using: &random) == 0 ? nil : Int.random(in: 0..<10, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<4:
            // Enough rows at once for groups to span several pages of 50.
            let count = Int.random(in: 20...60, using: &random)
            for _ in 0..<count {
                let key = "k\(Int.random(in: 0..<keyCount, using: &random))"
                let row = Row(
                    collection: collection, key: key, object: Int.random(in: 0..<30, using: &random),
                    metadata: Int.random(in: 0..<10, using: &random))
                try tx.setObject(row.object, forKey: key, inCollection: collection, withMetadata: row.metadata)
                model.rows[CollectionKey(collection: collection, key: key)] = row
            }
            return "set \(count) rows in \(collection)"
        case 4..<35:
            try tx.setObject(object, forKey: key, inCollection: collection, withMetadata: metadata)
            model.rows[ck] = Row(collection: collection, key: key, object: object, metadata: metadata)
            return "set \(ck) \(object) \(metadata.map(String.init) ?? "-")"
        case 35..<45:
            try tx.replaceObject(object, forKey: key, inCollection: collection)
            model.rows[ck]?.object = object
            return "replace object \(ck) \(object)"
        case 45..<55:
            try tx.replaceMetadata(metadata, forKey: key, inCollection: collection)
            model.rows[ck]?.metadata = metadata
            return "replace metadata \(ck) \(metadata.map(String.init) ?? "-")"
        case 55..<65:
            switch Int.random(in: 0..<3, using: &random) {
            case 0: try tx.touchObject(forKey: key, inCollection: collection)
            case 1: try tx.touchMetadata(forKey: key, inCollection: collection)
            default: try tx.touchRow(forKey: key, inCollection: collection)
            }
            return "touch \(ck)"
        case 65..<80:
            try tx.removeObject(forKey: key, inCollection: collection)
            model.rows[ck] = nil
            return "remove \(ck)"
        case 80..<86:
            let keys = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                "k\(Int.random(in: 0..<keyCount, using: &random))"
            }
            try tx.removeObjects(forKeys: keys, inCollection: collection)
            for key in keys { model.rows[CollectionKey(collection: collection, key: key)] = nil }
            return "remove \(collection) \(keys)"
        case 86..<89:
            try tx.removeAllObjects(inCollection: collection)
            model.rows = model.rows.filter { $0.key.collection != collection }
            return "remove all in \(collection)"
        case 89..<91:
            try tx.removeAllObjectsInAllCollections()
            model.rows = [:]
            return "remove all"
        case 91..<94:
            model.filtering = Int.random(in: 0..<3, using: &random)
            tag += 1
            try tx.extension("f", as: FilteredViewTransaction.self).setFiltering(
                filtering(model.filtering), versionTag: "\(tag)")
            return "set filtering \(model.filtering)"
        default:
            let view = try tx.extension("v", as: AutoViewTransaction.self)
            tag += 1
            model.sorting = Int.random(in: 0..<4, using: &random)
            if Bool.random(using: &random) {
                model.grouping = Int.random(in: 0..<4, using: &random)
                try view.setGrouping(grouping(model.grouping), sorting: sorting(model.sorting), versionTag: "\(tag)")
                return "set grouping \(model.grouping) sorting \(model.sorting)"
            }
            try view.setSorting(sorting(model.sorting), versionTag: "\(tag)")
            return "set sorting \(model.sorting)"
        }
    }
}
