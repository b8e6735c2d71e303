import CofferTestSupport
import Testing

@testable import Coffer

/// Random grouped lists changed by random inserts, deletes, moves, updates and cleared groups,
/// recorded as a view records them over several commits: the consolidated changes, applied to
/// the list the old mappings showed, must give the list the new mappings show.
@Suite("ViewChanges property")
struct ViewChangesPropertyTests {
    static let groups = ["A", "B", "C"]

    @Test("consolidated changes turn the old list into the new one (fixed seed)")
    func fixedSeed() {
        var generator = SeededGenerator(seed: 0x5EED_0022)
        for round in 0..<400 {
            let seed = generator.next()
            guard let failure = Self.check(seed: seed) else { continue }
            Issue.record("round \(round), seed \(seed): \(failure)")
            return
        }
    }

    @Test("consolidated changes turn the old list into the new one (random seed)")
    func randomSeed() {
        let seed = UInt64.random(in: 0...UInt64.max)
        for offset in 0..<50 {
            if let failure = Self.check(seed: seed &+ UInt64(offset)) {
                Issue.record("seed \(seed &+ UInt64(offset)): \(failure)")
                return
            }
        }
    }

    /// Runs one random scenario; returns what went wrong, or `nil`.
    static func check(seed: UInt64) -> String? {
        var random = SeededGenerator(seed: seed)
        var nextKey = 0
        var view: [String: [CollectionKey]] = [:]
        for group in groups {
            view[group] = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                nextKey += 1
                return CollectionKey(collection: "", key: "k\(nextKey)")
            }
        }
        var mappings = randomMappings(using: &random)
        mappings.update(groupCounts: view.mapValues(\.count))
        let oldRows = shownRows(view, mappings)

        var records: [ViewChangeRecord] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                records += randomChange(to: &view, nextKey: &nextKey, using: &random)
            }
        }
        let changes = ViewChanges.advance(&mappings, groupCounts: view.mapValues(\.count), records: records)
        let newRows = shownRows(view, mappings)
        do {
            let applied = try ViewChangesApplier.apply(
                sections: changes.sectionChanges, rows: changes.rowChanges, to: oldRows)
            if applied != newRows {
                return "applying \(changes) to \(oldRows) gave \(applied), expected \(newRows); records \(records)"
            }
        } catch {
            return "\(error) applying \(changes) to \(oldRows); records \(records)"
        }
        return nil
    }

    /// Mappings of the three groups with random hiding of empty groups, reversal, folding and
    /// drawing dependencies.
    static func randomMappings(using random: inout SeededGenerator) -> ViewMappings {
        var mappings = ViewMappings(groups: groups)
        mappings.isDynamicSectionForAllGroups = Bool.random(using: &random)
        for group in groups where Int.random(in: 0..<3, using: &random) == 0 {
            mappings.setIsReversed(true, forGroup: group)
        }
        if Int.random(in: 0..<4, using: &random) == 0 {
            mappings.setAutoConsolidateGroups(threshold: Int.random(in: 1...12, using: &random), name: "all")
        }
        if Bool.random(using: &random) {
            mappings.setCellDrawingDependencyOffsets(
                [[-1], [1], [-1, 1]][Int.random(in: 0..<3, using: &random)], forGroup: "A")
        }
        return mappings
    }

    /// The sections of rows `mappings` show of `view`.
    static func shownRows(_ view: [String: [CollectionKey]], _ mappings: ViewMappings) -> [[CollectionKey]] {
        let rows = { (group: String) -> [CollectionKey] in
            let keys = view[group] ?? []
            return mappings.isReversed(forGroup: group) ? keys.reversed() : keys
        }
        if mappings.isUsingConsolidatedGroup {
            return [mappings.allGroups.filter { mappings.section(forGroup: $0) != nil }.flatMap(rows)]
        }
        return mappings.visibleGroups.map(rows)
    }

    /// One random change to `view`, as the records a view's write transaction makes for it.
    static func randomChange(
        to view: inout [String: [CollectionKey]], nextKey: inout Int, using random: inout SeededGenerator
    ) -> [ViewChangeRecord] {
        let group = groups[Int.random(in: 0..<groups.count, using: &random)]
        let count = view[group]?.count ?? 0
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3:
            nextKey += 1
            return insert(CollectionKey(collection: "", key: "k\(nextKey)"), into: group, of: &view, using: &random)
        case 3..<5 where count > 0:
            return remove(at: Int.random(in: 0..<count, using: &random), from: group, of: &view).records
        case 5..<8 where count > 0:
            let removal = remove(at: Int.random(in: 0..<count, using: &random), from: group, of: &view)
            let target = groups[Int.random(in: 0..<groups.count, using: &random)]
            return removal.records + insert(removal.key, into: target, of: &view, using: &random)
        case 8 where count > 0:
            let index = Int.random(in: 0..<count, using: &random)
            let key = view[group]?[index] ?? CollectionKey(collection: "", key: "")
            return [.updateRow(key, group: group, index: index, parts: .metadata)]
        case 9 where count > 0 && Int.random(in: 0..<3, using: &random) == 0:
            view[group] = []
            return [.clearGroup(group)]
        default:
            return []
        }
    }

    /// Inserts `key` at a random index of `group`.
    static func insert(
        _ key: CollectionKey, into group: String, of view: inout [String: [CollectionKey]],
        using random: inout SeededGenerator
    ) -> [ViewChangeRecord] {
        let keys = view[group] ?? []
        let index = Int.random(in: 0...keys.count, using: &random)
        view[group] = Array(keys[..<index]) + [key] + Array(keys[index...])
        let row = ViewChangeRecord.insertRow(key, group: group, index: index)
        return keys.isEmpty ? [.insertGroup(group), row] : [row]
    }

    /// Removes the row at `index` of `group`.
    static func remove(
        at index: Int, from group: String, of view: inout [String: [CollectionKey]]
    ) -> (key: CollectionKey, records: [ViewChangeRecord]) {
        var keys = view[group] ?? []
        let key = keys.remove(at: index)
        view[group] = keys
        let row = ViewChangeRecord.deleteRow(key, group: group, index: index)
        return (key, keys.isEmpty ? [row, .deleteGroup(group)] : [row])
    }
}
