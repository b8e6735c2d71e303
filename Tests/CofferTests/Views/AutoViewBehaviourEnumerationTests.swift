import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// YapDatabase's enumeration, mutation-during-enumeration, find and drop-view tests.
extension AutoViewBehaviourTests {
    /// The keys `enumerateKeys` visits, with the indexes it reports.
    static func enumerated(
        _ view: AutoViewTransaction, group: String = "", from start: Int? = nil, reverse: Bool = false,
        through last: Int? = nil
    ) throws -> [String] {
        var visited: [String] = []
        try view.enumerateKeys(inGroup: group, from: start, reverse: reverse) { row, index, stop in
            visited.append("\(index):\(row.key)")
            if index == last { stop = true }
        }
        return visited
    }

    @Test(arguments: [true, false])
    func enumerationRunsForwardsBackwardsAndOverASubrange(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")
        let writer = try test.connection()
        try writer.readWrite { tx in try Self.set([3, 0, 4, 2, 1], tx) }
        try test.connection().read { tx throws in
            let view = try Self.view(tx)
            let all = (0..<5).map { "\($0):key\($0)" }
            #expect(try Self.enumerated(view) == all)
            #expect(try Self.enumerated(view, reverse: true) == all.reversed())
            // YapDatabase's range (1, 3): forwards from 1 through 3, backwards from 3 through 1.
            #expect(try Self.enumerated(view, from: 1, through: 3) == Array(all[1...3]))
            #expect(try Self.enumerated(view, from: 3, reverse: true, through: 1) == all[1...3].reversed())
            #expect(try Self.enumerated(view, group: "missing") == [])
        }
    }

    /// YapDatabase's testMutationDuringEnumerationProtection, the part that must hold: stopping
    /// right after changing the enumerated group, or changing another group, is fine.
    @Test(arguments: [true, false])
    func changingAnotherGroupOrStoppingDuringEnumerationIsAllowed(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.prefixed(persistent: persistent), withName: "order")
        let writer = try test.connection()
        try writer.readWrite { tx in
            for index in 0..<100 { try tx.setObject("obj-\(index)", forKey: "key-\(index)", inCollection: nil) }
        }
        try writer.readWrite { tx in
            let view = try Self.view(tx)
            var added = 200
            for reverse in [false, true] {
                try view.enumerateKeys(inGroup: "default-group", reverse: reverse) { _, _, stop in
                    try tx.setObject("obj-\(added)", forKey: "key-\(added)", inCollection: nil)
                    added += 1
                    stop = true
                }
                try view.enumerateKeys(inGroup: "default-group", reverse: reverse) { row, _, stop in
                    try tx.removeObject(forKey: row.key, inCollection: nil)
                    stop = true
                }
            }
            var other = 0
            try view.enumerateKeys(inGroup: "default-group") { _, _, _ in
                try tx.setObject("diff-obj-\(other)", forKey: "diff-key-\(other)", inCollection: nil)
                other += 1
            }
            #expect(other == 100)
            #expect(try view.numberOfItems(inGroup: "different-group") == 100)
            #expect(try view.numberOfItems(inGroup: "default-group") == 100)
            try view.enumerateKeys(inGroup: "default-group") { _, _, stop in
                try tx.removeAllObjectsInAllCollections()
                stop = true
            }
            #expect(try view.numberOfGroups() == 0)
        }
    }

    /// The other part of that test (a gap): changing the enumerated group without stopping is not refused.
    ///
    /// YapDatabase throws there. Coffer's enumeration lists the group's rows before the first
    /// call and goes on over that list, so such a change is not refused.
    @Test(arguments: [true, false])
    func changingTheEnumeratedGroupWithoutStoppingIsRefused(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.prefixed(persistent: persistent), withName: "order")
        let writer = try test.connection()
        try writer.readWrite { tx in
            for index in 0..<120 { try tx.setObject("obj-\(index)", forKey: "key-\(index)", inCollection: nil) }
        }
        try writer.readWrite { tx in
            let view = try Self.view(tx)
            var added = 200
            #expect {
                try view.enumerateKeys(inGroup: "default-group") { _, _, _ in
                    try tx.setObject("obj-\(added)", forKey: "key-\(added)", inCollection: nil)
                    added += 1
                }
            } throws: { ($0 as? DatabaseError)?.code == .mutationDuringEnumeration }
            #expect {
                try view.enumerateKeys(inGroup: "default-group", reverse: true) { row, _, _ in
                    try tx.removeObject(forKey: row.key, inCollection: nil)
                }
            } throws: { ($0 as? DatabaseError)?.code == .mutationDuringEnumeration }
            // Another group, or other data, may change; so may this group when the body stops.
            var visited = 0
            try view.enumerateKeys(inGroup: "default-group") { _, index, _ in
                try tx.setObject("other-\(index)", forKey: "other-\(index)", inCollection: nil)
                try tx.setObject("1", forKey: "x", inCollection: "elsewhere")
                visited += 1
            }
            #expect(visited == (try view.numberOfItems(inGroup: "default-group")))
            try view.enumerateKeys(inGroup: "default-group") { row, _, stop in
                try tx.removeObject(forKey: row.key, inCollection: nil)
                stop = true
            }
            tx.rollback()
        }
    }

    /// Keys starting with "key" in "default-group", the rest in "different-group", by numeric object.
    static func prefixed(persistent: Bool) -> AutoView {
        AutoView(
            grouping: .key { row, group in group = row.key.hasPrefix("key") ? "default-group" : "different-group" },
            sorting: .object(String.self) { _, left, right in left.object.compare(right.object, options: .numeric) },
            versionTag: "1", isPersistent: persistent)
    }

    /// YapDatabase's testFind: the exact range of values in [min, max), and nil for an empty range.
    @Test(arguments: [true, false])
    func findGivesTheExactRangeOrNil(persistent: Bool) throws {
        let test = try TestDatabase()
        let numbers = AutoView(
            grouping: .key { _, group in group = "" },
            sorting: .object(Int.self) { _, left, right in
                left.object < right.object
                    ? .orderedAscending : left.object > right.object ? .orderedDescending : .orderedSame
            },
            versionTag: "1", isPersistent: persistent)
        try test.database.register(numbers, withName: "order")
        let writer = try test.connection()
        try writer.readWrite { tx in
            for value in (0..<100).reversed() { try tx.setObject(value, forKey: "key-\(value)", inCollection: nil) }
        }
        try writer.read { tx throws in
            let view = try Self.view(tx)
            #expect(try view.numberOfItems(inGroup: "") == 100)
            for (low, high) in [(0, 5), (11, 54), (50, 100), (40, 40)] {
                let find = ViewFind.object(Int.self) { row in
                    row.object < low ? .orderedAscending : row.object >= high ? .orderedDescending : .orderedSame
                }
                let range = try view.findRange(inGroup: "", using: find)
                if high > low {
                    #expect(range == low..<high, "location \(low), length \(high - low)")
                } else {
                    #expect(range == nil)
                }
            }
        }
    }

    /// YapDatabase's testDropView, on every connection: once unregistered the view is gone from
    /// every connection, and registering it again starts from the rows.
    @Test(arguments: [true, false])
    func anUnregisteredViewIsGoneFromEveryConnection(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")
        let one = try test.connection()
        let two = try test.connection()
        try one.readWrite { tx in try Self.set(0..<100, tx) }
        for connection in [one, two] { try connection.read { tx in try Self.expectOrder(tx, Self.keys(0..<100)) } }
        try test.database.unregister(extensionNamed: "order")
        for connection in [one, two, try test.connection()] {
            try connection.read { tx throws in
                #expect(tx.ext("order") == nil)
                let error = #expect(throws: DatabaseError.self) { _ = try Self.view(tx) }
                #expect(error?.code == .extensionFailure)
                #expect(try !tx.snapshotHasTable(AutoView.pageTableName(registeredName: "order")))
                #expect(try !tx.snapshotHasTable(AutoView.mapTableName(registeredName: "order")))
            }
        }
        try two.readWrite { tx in try tx.removeObject(forKey: "key0", inCollection: nil) }
        try test.database.register(Self.ordered(persistent: persistent), withName: "order")
        for connection in [one, two] { try connection.read { tx in try Self.expectOrder(tx, Self.keys(1..<100)) } }
    }
}
