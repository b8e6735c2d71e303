import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// SearchResultsView (YapDatabase's TestYapDatabaseSearchResultsView): its eight forms (over a
/// parent view or with its own grouping × persistent or in memory × with or without snippets),
/// live updates, the query across connections and launches, and the typing queue.
@Suite struct SearchResultsViewTests {
    /// One form of the view under test.
    struct Form: Sendable, CustomTestStringConvertible {
        var overParent: Bool
        var persistent: Bool
        var snippets: Bool

        var testDescription: String {
            "\(overParent ? "parent" : "own grouping"), \(persistent ? "persistent" : "memory"), \(snippets ? "snippets" : "no snippets")"
        }

        static let all: [Form] = [true, false].flatMap { parent in
            [true, false].flatMap { persistent in
                [true, false].map { Form(overParent: parent, persistent: persistent, snippets: $0) }
            }
        }
    }

    static let byKey = ViewSorting.key { _, left, right in
        left.key < right.key ? .orderedAscending : left.key > right.key ? .orderedDescending : .orderedSame
    }

    /// Every note in group "", in key order.
    static func parentView(persistent: Bool) -> AutoView {
        AutoView(
            grouping: .key { _, group in group = "" }, sorting: byKey, allowedCollections: .only(["notes"]),
            isPersistent: persistent)
    }

    static func search() -> FullTextSearch {
        FullTextSearch(
            columns: ["body"], handler: .object(String.self) { row, text in text["body"] = row.object },
            allowedCollections: .only(["notes"]))
    }

    static func results(_ form: Form, probeThreshold: Int? = nil) -> SearchResultsView {
        var view = SearchResultsView(
            fullTextSearchName: "fts",
            source: form.overParent
                ? .parentView("order") : .grouping(.key { _, group in group = "" }, sorting: byKey),
            snippetOptions: form.snippets ? .init(startMatch: "[", endMatch: "]", ellipsis: "…") : nil,
            allowedCollections: .only(["notes"]), isPersistent: form.persistent)
        if let probeThreshold { view.probeThreshold = probeThreshold }
        return view
    }

    /// Registers the search, then the parent (when there is one), then the view, in `database`.
    static func register(_ form: Form, in database: Database, probeThreshold: Int? = nil) throws {
        try database.register(search(), withName: "fts")
        if form.overParent { try database.register(parentView(persistent: form.persistent), withName: "order") }
        try database.register(results(form, probeThreshold: probeThreshold), withName: "results")
    }

    static let notes = [
        "n1": "hello world", "n2": "hello there", "n3": "goodbye world", "n4": "nothing here",
        "n5": "world peace", "n6": "hello again",
    ]

    static func addNotes(_ connection: Connection, _ notes: [String: String] = notes) throws {
        try connection.readWrite { tx throws in
            for (key, text) in notes { try tx.setObject(text, forKey: key, inCollection: "notes") }
        }
    }

    static func view(_ tx: ReadTransaction) throws -> SearchResultsViewTransaction {
        try tx.extension("results", as: SearchResultsViewTransaction.self)
    }

    /// The keys of the results, in order.
    static func keys(_ tx: ReadTransaction) throws -> [String] {
        var keys: [String] = []
        try view(tx).enumerateKeys(inGroup: "") { row, _, _ in keys.append(row.key) }
        return keys
    }

    static func keys(_ connection: Connection) throws -> [String] {
        try connection.read { tx in try keys(tx) }
    }

    static func search(_ connection: Connection, _ query: String) throws {
        try connection.readWrite { tx in try view(tx).performSearch(for: query) }
    }

    /// Checks the results of `connection` are `expected`, with snippets marking `term` when the
    /// form keeps snippets.
    static func expectResults(
        _ connection: Connection, _ expected: [String], query: String?, term: String, _ form: Form,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try connection.read { tx throws in
            #expect(try keys(tx) == expected, sourceLocation: sourceLocation)
            #expect(try view(tx).query() == query, sourceLocation: sourceLocation)
            for key in expected {
                let snippet = try view(tx).snippet(forKey: key, inCollection: "notes")
                if form.snippets {
                    #expect(snippet?.contains("[\(term)]") == true, sourceLocation: sourceLocation)
                } else {
                    #expect(snippet == nil, sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test(arguments: Form.all)
    func searchesReplaceAndFollowWrites(form: Form) throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try Self.addNotes(writer, ["n1": Self.notes["n1"] ?? "", "n2": Self.notes["n2"] ?? ""])
        try Self.register(form, in: test.database)
        try Self.addNotes(writer)
        let sibling = try test.connection()

        // Empty before a search.
        for connection in [writer, sibling] {
            try Self.expectResults(connection, [], query: nil, term: "", form)
        }

        // A query's results on both connections.
        try Self.search(writer, "hello")
        for connection in [writer, sibling] {
            try Self.expectResults(connection, ["n1", "n2", "n6"], query: "hello", term: "hello", form)
        }

        // A second query replaces the results and the snippets.
        try Self.search(writer, "world")
        for connection in [writer, sibling] {
            try Self.expectResults(connection, ["n1", "n3", "n5"], query: "world", term: "world", form)
        }

        // Later writes: a matching insert appears, a row that stops matching leaves, a removed row goes.
        try writer.readWrite { tx throws in
            try tx.setObject("a new world", forKey: "n0", inCollection: "notes")
            try tx.setObject("not any more", forKey: "n3", inCollection: "notes")
            try tx.setObject("world of drafts", forKey: "d1", inCollection: "drafts")
            try tx.setObject("the world again", forKey: "n6", inCollection: "notes")
            try tx.removeObject(forKey: "n5", inCollection: "notes")
        }
        for connection in [writer, sibling] {
            try Self.expectResults(connection, ["n0", "n1", "n6"], query: "world", term: "world", form)
        }

        // An empty query empties the view.
        try Self.search(writer, "")
        try Self.expectResults(sibling, [], query: "", term: "", form)
        try writer.readWrite { tx in try tx.setObject("hello world", forKey: "n7", inCollection: "notes") }
        try Self.expectResults(sibling, [], query: "", term: "", form)
    }

    @Test(arguments: [true, false])
    func theQueryIsKeptAcrossLaunchesByThePersistentForm(persistent: Bool) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("db.sqlite")
        let options = TestKeyKind.raw.makeOptions()
        for overParent in [true, false] {
            let form = Form(overParent: overParent, persistent: persistent, snippets: true)
            do {
                let database = try TestSupport.open(url, options: options)
                let connection = try database.newConnection()
                try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
                try Self.register(form, in: database)
                try Self.addNotes(connection)
                try Self.search(connection, "hello")
            }
            let database = try TestSupport.open(url, options: options)
            try Self.register(form, in: database)
            let connection = try database.newConnection()
            if persistent {
                try Self.expectResults(connection, ["n1", "n2", "n6"], query: "hello", term: "hello", form)
                try connection.readWrite { tx in try tx.setObject("hello again", forKey: "n8", inCollection: "notes") }
                try Self.expectResults(connection, ["n1", "n2", "n6", "n8"], query: "hello", term: "hello", form)
            } else {
                try Self.expectResults(connection, [], query: nil, term: "", form)
            }
            try database.unregister(extensionNamed: "fts")
            #expect(database.registeredExtension("results") == nil)
        }
    }

    @Test(arguments: [true, false])
    func aRowIsPlacedInTheTransactionThatWritesIt(overParent: Bool) throws {
        let test = try TestDatabase()
        let form = Form(overParent: overParent, persistent: true, snippets: true)
        try Self.register(form, in: test.database)
        let writer = try test.connection()
        try Self.addNotes(writer)
        try Self.search(writer, "hello")
        try writer.readWrite { tx throws in
            try tx.setObject("hello new", forKey: "n9", inCollection: "notes")
            #expect(try Self.keys(tx) == ["n1", "n2", "n6", "n9"])
            #expect(try Self.view(tx).snippet(forKey: "n9", inCollection: "notes") == "[hello] new")
            try tx.setObject("bye", forKey: "n9", inCollection: "notes")
            #expect(try Self.keys(tx) == ["n1", "n2", "n6"])
        }
    }

    @Test(arguments: [true, false])
    func aParentRegisteredBeforeTheSearchIsFollowedAtTheFlush(persistent: Bool) throws {
        // The parent's hooks run before the search has the row's text: the row is placed at the flush.
        let test = try TestDatabase()
        try test.database.register(Self.parentView(persistent: persistent), withName: "order")
        try test.database.register(Self.search(), withName: "fts")
        let form = Form(overParent: true, persistent: persistent, snippets: true)
        try test.database.register(Self.results(form), withName: "results")
        let writer = try test.connection()
        let sibling = try test.connection()
        try Self.addNotes(writer)
        try Self.search(writer, "world")
        try writer.readWrite { tx throws in
            try tx.setObject("world news", forKey: "n0", inCollection: "notes")
            try tx.setObject("no longer", forKey: "n1", inCollection: "notes")
            try tx.setObject("still the world", forKey: "n5", inCollection: "notes")
        }
        for connection in [writer, sibling] {
            try Self.expectResults(connection, ["n0", "n3", "n5"], query: "world", term: "world", form)
        }
        try writer.read { tx throws in
            #expect(try Self.view(tx).snippet(forKey: "n5", inCollection: "notes") == "still the [world]")
        }
    }

    @Test func allowedGroupsLimitTheResults() throws {
        let test = try TestDatabase()
        try test.database.register(Self.search(), withName: "fts")
        let view = SearchResultsView(
            fullTextSearchName: "fts",
            source: .grouping(
                .object(String.self) { row, group in group = String(row.object.prefix(1)) }, sorting: Self.byKey),
            allowedGroups: .only(["h"]))
        try test.database.register(view, withName: "results")
        let writer = try test.connection()
        try Self.addNotes(writer)
        try Self.search(writer, "world")
        try writer.read { tx throws in
            #expect(try Self.view(tx).groups() == ["h"])
            #expect(try Self.view(tx).numberOfItemsInAllGroups() == 1)
        }
    }

    @Test func registeringWithoutAFullTextSearchFailsClearly() throws {
        let test = try TestDatabase()
        try test.database.register(Self.parentView(persistent: true), withName: "order")
        for persistent in [true, false] {
            let unnamed = SearchResultsView(
                fullTextSearchName: "", source: .parentView("order"), isPersistent: persistent)
            let error = #expect(throws: DatabaseError.self) { try test.database.register(unnamed, withName: "results") }
            #expect(error?.code == .extensionFailure)
            #expect(error?.message.contains("names no full-text search") == true)
            // A view is not a full-text search.
            let wrong = SearchResultsView(
                fullTextSearchName: "order", source: .parentView("order"), isPersistent: persistent)
            let wrongError = #expect(throws: DatabaseError.self) {
                try test.database.register(wrong, withName: "results")
            }
            #expect(wrongError?.code == .extensionFailure)
            #expect(test.database.registeredExtension("results") == nil)
        }
        let missing = SearchResultsView(fullTextSearchName: "nothing", source: .parentView("order"))
        #expect(throws: DatabaseError.self) { try test.database.register(missing, withName: "results") }
    }

    @Test func aQueryThatDoesNotParseChangesNothing() throws {
        let test = try TestDatabase()
        try Self.register(Form(overParent: false, persistent: true, snippets: false), in: test.database)
        let writer = try test.connection()
        try Self.addNotes(writer)
        try Self.search(writer, "hello")
        let error = #expect(throws: DatabaseError.self) { try Self.search(writer, "\"unbalanced") }
        #expect(error?.code == .invalidQuery)
        #expect(try Self.keys(writer) == ["n1", "n2", "n6"])
    }
}
