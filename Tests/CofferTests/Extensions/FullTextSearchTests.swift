import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// FullTextSearch on SQLCipher 3.4.1's FTS4: searches, snippets, every kind of write,
    /// rollback, persistence, and the typed errors.
    @Suite struct FullTextSearchTests {
        private func setUp(_ search: FullTextSearch = articleSearch()) throws -> (TestDatabase, Connection) {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.setObject(
                    Article(title: "Running encrypted databases", body: "SQLCipher encrypts every page of the file."),
                    forKey: "a1", inCollection: "articles")
                try tx.setObject(
                    Article(title: "Swift concurrency", body: "Actors and tasks run concurrently."),
                    forKey: "a2", inCollection: "articles", withMetadata: "meta2")
                try tx.setObject(
                    Article(title: "Draft about encryption", body: "Not searchable."), forKey: "d1",
                    inCollection: "drafts")
            }
            try test.database.register(search, withName: "search")
            return (test, connection)
        }

        private func matches(_ tx: ReadTransaction, _ expression: String) throws -> [String] {
            try #require(tx.fullTextSearch("search")).keys(matching: expression).map(\.key).sorted()
        }

        @Test func theFTSModulesOfTheLinkedSQLCipher() throws {
            // SQLCipher 3.4.1 is built with ENABLE_FTS3 (FTS3 and FTS4) and no FTS5.
            let test = try TestDatabase()
            try test.database.register(articleSearch(version: .fts3), withName: "three")
            try test.database.register(articleSearch(version: .fts4), withName: "four")
            let failure = code { try test.database.register(articleSearch(version: .fts5), withName: "five") }
            if SQLiteConnectionVersion.hasFTS5 {
                #expect(failure == nil)
            } else {
                #expect(failure == .unsupportedFeature)
                #expect(test.database.registeredExtension("five") == nil)
                try test.connection().read { tx throws in
                    #expect(try !schemaHas(tx, "fts_five"))
                    #expect(try yapRowCount(tx, "five") == 0)
                }
            }
            try test.connection().read { tx throws in
                #expect(
                    try tx.core.sqlite.scalarText("SELECT sql FROM sqlite_master WHERE name = 'fts_four'")?
                        .contains("USING fts4(\"title\", \"body\", tokenize=porter)") == true)
                #expect(try tx.yapString(extension: "three", key: "ftsVersion") == "fts3")
            }
        }

        @Test func searchesFindStemmedWordsInAllowedCollectionsOnly() throws {
            let (_, connection) = try setUp()
            try connection.read { tx throws in
                #expect(try matches(tx, "encrypt") == ["a1"])  // porter: "encrypts" → "encrypt"; drafts excluded
                #expect(try matches(tx, "run") == ["a1", "a2"])
                #expect(try matches(tx, "title:swift") == ["a2"])
                #expect(try matches(tx, "\"every page\"") == ["a1"])
                #expect(try matches(tx, "conc*") == ["a2"])
                #expect(try matches(tx, "nothing").isEmpty)
                let search = try #require(tx.fullTextSearch("search"))
                #expect(try search.count(matching: "run") == 2)
                var titles: [String] = []
                try search.enumerateKeysAndObjects(matching: "run") { collection, _, object, _ in
                    #expect(collection == "articles")
                    titles.append((object as? Article)?.title ?? "?")
                }
                #expect(titles.sorted() == ["Running encrypted databases", "Swift concurrency"])
                var metadata: [String: String] = [:]
                try search.enumerateKeysAndMetadata(matching: "run") { _, key, value, _ in
                    // "articles" registers no metadata codec: metadata is automatic JSON.
                    metadata[key] = (try (value as? EncodedValue)?.decode(as: String.self)) ?? "-"
                }
                #expect(metadata == ["a1": "-", "a2": "meta2"])
                var rows = 0
                try search.enumerateRows(matching: "run") { _, _, _, _, stop in
                    rows += 1
                    stop = true
                }
                #expect(rows == 1)
            }
        }

        @Test func snippetsUseTheGivenMarkers() throws {
            let (_, connection) = try setUp()
            try connection.read { tx throws in
                let search = try #require(tx.fullTextSearch("search"))
                let options = FullTextSearch.SnippetOptions(
                    startMatch: "[", endMatch: "]", ellipsis: "…", tokenCount: 4)
                var snippets: [String: String] = [:]
                try search.enumerateKeys(matching: "page", snippet: options) { snippet, _, key, _ in
                    snippets[key] = snippet
                }
                #expect(snippets == ["a1": "…encrypts every [page] of…"])
                var titled: [String] = []
                try search.enumerateKeysAndObjects(matching: "swift", snippet: .init(column: "title")) {
                    snippet, _, _, _, _ in
                    titled.append(snippet)
                }
                #expect(titled == ["<b>Swift</b> concurrency"])
                var rowSnippets: [String] = []
                try search.enumerateRows(matching: "actors", snippet: .init(startMatch: "*", endMatch: "*")) {
                    snippet, _, _, _, _, _ in rowSnippets.append(snippet)
                }
                #expect(rowSnippets == ["*Actors* and tasks run concurrently."])
                #expect(
                    try search.snippet(forKey: "a1", inCollection: "articles", matching: "database")
                        == "Running encrypted <b>databases</b>")
                #expect(try search.snippet(forKey: "a2", inCollection: "articles", matching: "database") == nil)
                #expect(try search.snippet(forKey: "zz", inCollection: "articles", matching: "database") == nil)
                #expect(
                    code { try search.enumerateKeys(matching: "x", snippet: .init(tokenCount: 0)) { _, _, _, _ in } }
                        == .invalidQuery)
                #expect(
                    code { try search.enumerateKeys(matching: "x", snippet: .init(column: "nope")) { _, _, _, _ in } }
                        == .invalidQuery)
            }
        }

        @Test func everyKindOfWriteUpdatesTheSearch() throws {
            let (test, connection) = try setUp()
            let reader = try test.connection()
            let found = { (expression: String) in try reader.read { tx in try matches(tx, expression) } }
            try connection.readWrite { tx in
                try tx.setObject(Article(title: "Zebra facts", body: "stripes"), forKey: "a3", inCollection: "articles")
                try tx.setObject(Article(title: "Swift zebras", body: "fast"), forKey: "a2", inCollection: "articles")
                #expect(try matches(tx, "zebra") == ["a2", "a3"])  // seen inside the write
                #expect(try matches(tx, "actors").isEmpty)
            }
            #expect(try found("zebra") == ["a2", "a3"])
            try connection.readWrite { tx in
                try tx.replaceObject(Article(title: "Giraffes", body: "tall"), forKey: "a3", inCollection: "articles")
                try tx.replaceMetadata("ignored", forKey: "a1", inCollection: "articles")
                try tx.touchObject(forKey: "a1", inCollection: "articles")
            }
            #expect(try found("zebra") == ["a2"])
            #expect(try found("tall") == ["a3"])
            #expect(try found("page") == ["a1"])
            // No text removes the entry.
            try connection.readWrite { tx in
                try tx.replaceObject(Article(title: "", body: "tall"), forKey: "a3", inCollection: "articles")
            }
            #expect(try found("tall").isEmpty)
            try connection.readWrite { tx in try tx.removeObject(forKey: "a2", inCollection: "articles") }
            #expect(try found("zebra").isEmpty)
            try connection.readWrite { tx in
                try tx.setObject(Article(title: "One more", body: "x"), forKey: "a4", inCollection: "articles")
                try tx.removeObjects(forKeys: ["a4", "gone"], inCollection: "articles")
                try tx.removeAllObjects(inCollection: "drafts")
            }
            #expect(try found("page") == ["a1"])
            #expect(try found("more").isEmpty)
            try connection.readWrite { tx in try tx.removeAllObjects(inCollection: "articles") }
            #expect(try found("page").isEmpty)
            try connection.readWrite { tx in
                try tx.setObject(Article(title: "Back again", body: "page"), forKey: "b", inCollection: "articles")
            }
            #expect(try found("page") == ["b"])
            try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            #expect(try found("page").isEmpty)
            #expect(try reader.read { tx in try tx.core.sqlite.scalarInt("SELECT COUNT(*) FROM fts_search") } == 0)
        }

        @Test func rollbackLeavesTheSearchUnchanged() throws {
            let (_, connection) = try setUp()
            try connection.readWrite { tx in
                try tx.setObject(Article(title: "Ephemeral", body: "gone"), forKey: "e", inCollection: "articles")
                try tx.removeObject(forKey: "a1", inCollection: "articles")
                #expect(try matches(tx, "ephemeral") == ["e"])
                tx.rollback()
            }
            try connection.read { tx throws in
                #expect(try matches(tx, "ephemeral").isEmpty)
                #expect(try matches(tx, "page") == ["a1"])
            }
        }

        @Test func malformedExpressionsAreTypedErrors() throws {
            let (_, connection) = try setUp()
            try connection.read { tx throws in
                let search = try #require(tx.fullTextSearch("search"))
                #expect(code { _ = try search.keys(matching: "\"unterminated") } == .invalidQuery)
                #expect(code { _ = try search.count(matching: "\"unterminated") } == .invalidQuery)
                #expect(code { _ = try search.keys(matching: "nosuchcolumn:word") } == nil)  // FTS4 reads it as text
                #expect(try search.count(matching: "page") == 1)
            }
        }

        /// SECURITY.md advises quoting a user's search text into one phrase (drop every `"`, wrap the
        /// rest in double quotes) so that FTS reads no operators or column filters in it.
        @Test func userTextQuotedIntoOnePhraseIsNeverReadAsOperators() throws {
            let (_, connection) = try setUp()
            func phrase(_ text: String) -> String { "\"" + text.filter { $0 != "\"" } + "\"" }
            try connection.read { tx throws in
                #expect(try matches(tx, "encrypt OR swift") == ["a1", "a2"])
                #expect(try matches(tx, phrase("encrypt OR swift")).isEmpty)
                #expect(try matches(tx, "encrypt NEAR page") == ["a1"])
                #expect(try matches(tx, phrase("encrypt NEAR page")).isEmpty)
                #expect(try matches(tx, "title:swift") == ["a2"])
                #expect(try matches(tx, phrase("title:swift")).isEmpty)
                #expect(try matches(tx, "run -swift") == ["a1"])
                #expect(try matches(tx, phrase("run -swift")).isEmpty)
                #expect(try matches(tx, phrase("every\" OR \"swift")).isEmpty)
                #expect(try matches(tx, phrase("every page")) == ["a1"])
                #expect(try matches(tx, phrase("conc*")) == ["a2"])  // a trailing * still asks for a prefix
            }
        }

        @Test func tokenizersAndOptions() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.setObject(Article(title: "Café crème", body: "naïve"), forKey: "c", inCollection: "articles")
            }
            try test.database.register(
                articleSearch(tokenizer: .unicode61(removeDiacritics: true)).withOptions(["prefix": "2,3"]),
                withName: "folded")
            try test.database.register(articleSearch(tokenizer: .unicode61(removeDiacritics: false)), withName: "exact")
            try test.database.register(articleSearch(tokenizer: .simple), withName: "simple")
            try connection.read { tx throws in
                #expect(try tx.fullTextSearch("folded")?.count(matching: "cafe") == 1)
                #expect(try tx.fullTextSearch("folded")?.count(matching: "CREME") == 1)
                #expect(try tx.fullTextSearch("folded")?.count(matching: "na*") == 1)
                #expect(try tx.fullTextSearch("exact")?.count(matching: "cafe") == 0)
                #expect(try tx.fullTextSearch("exact")?.count(matching: "café") == 1)
                #expect(try tx.fullTextSearch("simple")?.count(matching: "crème") == 1)
            }
            let bad: [FullTextSearch] = [
                articleSearch().withOptions(["prefix": "2\"); DROP TABLE database2; --"]),
                articleSearch().withOptions(["tokenize": "porter"]),
                articleSearch(tokenizer: .custom(name: "porter\"", arguments: [])),
                FullTextSearch(columns: ["rowid"], handler: .byKey { _, _, _, _ in }),
                FullTextSearch(columns: [], handler: .byKey { _, _, _, _ in }),
                FullTextSearch(columns: ["a", "a"], handler: .byKey { _, _, _, _ in }),
            ]
            for search in bad {
                #expect(code { try test.database.register(search, withName: "bad") } == .extensionFailure)
            }
            #expect(test.database.registeredExtension("bad") == nil)
        }

        @Test func theSearchPersistsAcrossReopen() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.passphrase.makeOptions()
            let calls = Locked(0)
            do {
                let database = try TestSupport.open(url, options: options)
                Extensions.registerCodecs(database)
                try database.register(articleSearch(calls: calls), withName: "search")
                try database.newConnection().readWrite { tx in
                    try tx.setObject(
                        Article(title: "Persistent words", body: "kept"), forKey: "p", inCollection: "articles")
                }
            }
            calls.withLock { $0 = 0 }
            let database = try TestSupport.open(url, options: options)
            Extensions.registerCodecs(database)
            try database.register(articleSearch(calls: calls), withName: "search")
            #expect(calls.value == 0)
            try database.newConnection().read { tx throws in
                #expect(try matches(tx, "persistent") == ["p"])
            }
        }
    }
}

/// Whether the linked SQLite has FTS5 (never for SQLCipher 3.4.1).
private enum SQLiteConnectionVersion {
    static var hasFTS5: Bool {
        guard let db = try? CofferSQLite.SQLiteConnection(path: ":memory:") else { return false }
        return (try? db.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")) != nil
    }
}

extension FullTextSearch {
    /// The same configuration with other module options.
    fileprivate func withOptions(_ options: [String: String]) -> FullTextSearch {
        FullTextSearch(
            columns: columns, handler: handler, version: version, tokenizer: tokenizer, options: options,
            versionTag: versionTag, allowedCollections: allowedCollections)
    }
}
