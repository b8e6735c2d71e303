import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Binary-search finds over an AutoView group, and the has-changes questions of changesets.
@Suite struct AutoViewFindTests {
    private func between(_ low: Int, _ high: Int) -> ViewFind {
        .object(Int.self) { row in
            row.object < low ? .orderedAscending : row.object < high ? .orderedSame : .orderedDescending
        }
    }

    @Test func findsTheExactRangeAndTheFirstMatch() throws {
        let test = try TestDatabase()
        try test.database.register(AutoViewTests.numbers(), withName: "numbers")
        let writer = try test.connection()
        try writer.readWrite { tx in
            for value in stride(from: 2, through: 300, by: 2).shuffled() {
                try tx.setObject(value, forKey: "k\(value)", inCollection: "n")
            }
        }
        try writer.read { tx throws in
            let view = try tx.extension("numbers", as: AutoViewTransaction.self)
            // Evens 100...148: indexes 49...73.
            #expect(try view.findRange(inGroup: "even", using: between(100, 150)) == 49..<74)
            #expect(try view.findRange(inGroup: "even", using: between(0, 3)) == 0..<1)
            #expect(try view.findRange(inGroup: "even", using: between(300, 1_000)) == 149..<150)
            #expect(try view.findRange(inGroup: "even", using: between(101, 102)) == nil)
            #expect(try view.findRange(inGroup: "even", using: between(1_000, 2_000)) == nil)
            #expect(try view.findRange(inGroup: "odd", using: between(0, 1_000)) == nil)
            let first = try view.findFirstMatch(inGroup: "even", using: between(101, 200))
            #expect(first?.row.key == "k102")
            #expect(first?.index == 50)
        }
    }

    @Test func changesetsSayWhichViewAndGroupChanged() throws {
        let test = try TestDatabase()
        try test.database.register(AutoViewTests.numbers(), withName: "numbers")
        let writer = try test.connection()
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        try writer.readWrite { tx in try tx.setObject(4, forKey: "k4", inCollection: "n") }
        try writer.readWrite { tx in try tx.setObject("text", forKey: "t", inCollection: "n") }
        let changesets = try reader.beginLongLivedReadTransaction()
        #expect(changesets.count == 2)
        #expect(changesets[0].hasChanges(inView: "numbers"))
        #expect(changesets[0].hasChanges(inView: "numbers", group: "even"))
        #expect(!changesets[0].hasChanges(inView: "numbers", group: "odd"))
        #expect(!changesets[1].hasChanges(inView: "numbers"), "a row the grouping leaves out")
        #expect(!changesets[0].hasChanges(inView: "other"))
        #expect(Changeset(isReset: true).hasChanges(inView: "numbers", group: "odd"))
    }
}
