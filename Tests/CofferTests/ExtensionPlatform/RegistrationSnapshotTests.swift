import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A registration commits a snapshot of its own: readers pinned before it never use it, even
/// when an earlier registration under the same name left a table of that name.
@Suite struct RegistrationSnapshotTests {
    private func index(only collection: String) -> SecondaryIndex {
        SecondaryIndex(
            setup: SecondaryIndexSetup([("value", .integer)]),
            handler: .object(Int.self) { row, values in values["value"] = row.object },
            allowedCollections: .only([collection]))
    }

    @Test func aReaderPinnedBeforeARegistrationAgainDoesNotReadTheEarlierOnesTable() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject(1, forKey: "a1", inCollection: "a")
            try tx.setObject(2, forKey: "b1", inCollection: "b")
        }
        try test.database.register(index(only: "a"), withName: "idx")
        let reader = try test.connection()
        _ = try reader.beginLongLivedReadTransaction()
        try reader.read { tx throws in #expect(try tx.secondaryIndex("idx")?.count(matching: .matchingAll) == 1) }

        try test.database.unregister(extensionNamed: "idx")
        try test.database.register(index(only: "b"), withName: "idx")

        // The reader's snapshot predates the new registration: no index there, rather than the old table.
        try reader.read { tx throws in
            #expect(tx.secondaryIndex("idx") == nil)
            let error = #expect(throws: DatabaseError.self) {
                _ = try tx.extension("idx", as: SecondaryIndexTransaction.self).count(matching: .matchingAll)
            }
            #expect(error?.code == .extensionFailure)
        }
        let changesets = try reader.beginLongLivedReadTransaction()
        #expect(changesets.contains { $0.unregisteredExtensions == ["idx"] })
        #expect(changesets.contains { $0.registeredExtensions == ["idx"] })
        try reader.read { tx throws in
            let keys = try tx.secondaryIndex("idx")?.keys(matching: .matchingAll)
            #expect(keys == [CollectionKey(collection: "b", key: "b1")])
        }
    }
}
