import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// End to end: random commits to a view, and a long-lived reader that moves over several of them
/// at a time; the consolidated changes applied to the list it showed give the list it shows next.
@Suite struct AutoViewChangesModelTests {
    private func sections(_ connection: Connection, _ groups: [String]) throws -> [[CollectionKey]] {
        try connection.read { tx in
            let view = try tx.extension("numbers", as: AutoViewTransaction.self)
            return try groups.map { group in
                var keys: [CollectionKey] = []
                try view.enumerateKeys(inGroup: group) { row, _, _ in keys.append(row) }
                return keys
            }
        }
    }

    @Test(arguments: [UInt64(21), 22, 23])
    func appliedChangesLeadToTheNewList(seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        let test = try TestDatabase()
        try test.database.register(AutoViewTests.numbers(), withName: "numbers")
        let writer = try test.connection()
        let reader = try test.connection()
        let groups = ["even", "odd"]
        _ = try reader.beginLongLivedReadTransaction()
        var mappings = ViewMappings(groups: groups, view: "numbers")
        mappings.update(
            groupCounts: try reader.read { tx in
                try tx.extension("numbers", as: AutoViewTransaction.self).groupCounts()
            })
        var shown = try sections(reader, groups)
        for _ in 0..<25 {
            for _ in 0..<Int(1 + random.next() % 3) {
                try writer.readWrite { tx in
                    for _ in 0..<Int(random.next() % 12) {
                        let key = "k\(random.next() % 60)"
                        switch random.next() % 5 {
                        case 0...2: try tx.setObject(Int(random.next() % 500), forKey: key, inCollection: "n")
                        case 3: try tx.touchObject(forKey: key, inCollection: "n")
                        default: try tx.removeObject(forKey: key, inCollection: "n")
                        }
                    }
                }
            }
            let changesets = try reader.beginLongLivedReadTransaction()
            let records = changesets.flatMap { $0.viewChangeRecords(inView: "numbers") }
            let counts = try reader.read { tx in
                try tx.extension("numbers", as: AutoViewTransaction.self).groupCounts()
            }
            let changes = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
            let now = try sections(reader, groups)
            #expect(!changes.isReset)
            // Mappings with static groups keep a section per group, empty or not.
            let applied = try ViewChangesApplier.apply(
                sections: changes.sectionChanges, rows: changes.rowChanges, to: shown)
            #expect(applied == now, "seed \(seed)")
            shown = now
        }
    }
}
