import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// What readers and the views following a search view learn: each search and write gives changes
/// that lead from what a reader showed to what it shows.
extension SearchResultsViewTests {
    @Test(arguments: Form.all)
    func aReadersChangesLeadFromOneResultToTheNext(form: Form) throws {
        let test = try TestDatabase()
        try Self.register(form, in: test.database)
        let writer = try test.connection()
        let reader = try test.connection()
        try Self.addNotes(writer)
        _ = try reader.beginLongLivedReadTransaction()
        var shown = try rows(reader)
        func rows(_ connection: Connection) throws -> [CollectionKey] {
            try Self.keys(connection).map { CollectionKey(collection: "notes", key: $0) }
        }
        func advance() throws {
            var mappings = ViewMappings(groups: [""], view: "results")
            mappings.update(groupCounts: ["": shown.count])
            let records = try reader.beginLongLivedReadTransaction().flatMap {
                $0.viewChangeRecords(inView: "results")
            }
            let now = try rows(reader)
            let result = ViewChanges.advance(&mappings, groupCounts: ["": now.count], records: records)
            #expect(
                try ViewChangesApplier.apply(sections: result.sectionChanges, rows: result.rowChanges, to: [shown]) == [
                    now
                ])
            shown = now
            // No snippet outlives its row's place in the view.
            if form.snippets {
                try reader.read { tx throws in #expect(try Self.view(tx).searchStore.infoCount() == now.count) }
            }
        }
        try Self.search(writer, "hello")
        try advance()
        #expect(shown.map(\.key) == ["n1", "n2", "n6"])
        try Self.search(writer, "world OR again")
        try advance()
        #expect(shown.map(\.key) == ["n1", "n3", "n5", "n6"])
        try writer.readWrite { tx throws in
            try tx.setObject("world", forKey: "n0", inCollection: "notes")
            try tx.setObject("gone", forKey: "n3", inCollection: "notes")
            try tx.setObject("world again", forKey: "n1", inCollection: "notes")
        }
        try advance()
        #expect(shown.map(\.key) == ["n0", "n1", "n5", "n6"])
        try writer.readWrite { tx throws in try tx.removeAllObjects(inCollection: "notes") }
        try advance()
        #expect(shown.isEmpty)
        try Self.addNotes(writer)
        try advance()
        #expect(shown.map(\.key) == ["n1", "n3", "n5", "n6"])
        try writer.readWrite { tx throws in try tx.removeAllObjectsInAllCollections() }
        try advance()
        #expect(shown.isEmpty)
    }

    @Test(arguments: [true, false])
    func aParentsNewSortingAndAFilteredViewOverTheResultsAreFollowed(persistent: Bool) throws {
        let test = try TestDatabase()
        let form = Form(overParent: true, persistent: persistent, snippets: true)
        try Self.register(form, in: test.database)
        try test.database.register(
            FilteredView(
                parentViewName: "results", filtering: .key { _, row in row.key != "n2" }, isPersistent: persistent),
            withName: "shortList")
        let writer = try test.connection()
        try Self.addNotes(writer)
        try Self.search(writer, "hello")
        func shortList() throws -> [String] {
            try writer.read { tx throws in
                var keys: [String] = []
                try tx.extension("shortList", as: ViewTransaction.self).enumerateKeys(inGroup: "") { row, _, _ in
                    keys.append(row.key)
                }
                return keys
            }
        }
        #expect(try shortList() == ["n1", "n6"])
        // The parent sorted newest key first: the results follow its new order.
        try writer.readWrite { tx throws in
            try tx.extension("order", as: AutoViewTransaction.self).setSorting(
                .key { _, left, right in
                    left.key > right.key ? .orderedAscending : left.key < right.key ? .orderedDescending : .orderedSame
                }, versionTag: "descending")
        }
        #expect(try Self.keys(writer) == ["n6", "n2", "n1"])
        #expect(try shortList() == ["n6", "n1"])
        try writer.read { tx throws in
            #expect(try Self.view(tx).snippet(forKey: "n6", inCollection: "notes") == "[hello] again")
        }
        try writer.readWrite { tx throws in try tx.setObject("hello you", forKey: "n4", inCollection: "notes") }
        #expect(try Self.keys(writer) == ["n6", "n4", "n2", "n1"])
        #expect(try shortList() == ["n6", "n4", "n1"])
    }
}
