import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// BM25 relevance: the score itself, full-text queries ordered by it, and a search view ranked by it.
extension SearchResultsViewTests {
    @Test func bm25ScoresTheWorkedExample() throws {
        // One phrase, two columns, 10 rows; averages 4 and 20 tokens; this row 2 and 40 tokens;
        // the phrase: 1 hit (in 3 rows) in the first column, 2 hits (in 5 rows) in the second.
        let values: [UInt32] = [1, 2, 10, 4, 20, 2, 40, 1, 4, 3, 2, 9, 5]
        let score = try #require(BM25.score(matchinfo: values, weights: [2, 1]))
        func part(_ tf: Double, _ docs: Double, _ length: Double, _ average: Double) -> Double {
            log(1 + (10 - docs + 0.5) / (docs + 0.5)) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
        }
        let expected = 2 * part(1, 3, 2, 4) + part(2, 5, 40, 20)
        #expect(abs(score - expected) < 1e-9)
        // A weight of zero leaves a column out; missing weights count as 1.
        #expect(abs((BM25.score(matchinfo: values, weights: [0]) ?? 0) - part(2, 5, 40, 20)) < 1e-9)
        #expect(BM25.score(matchinfo: [1, 2, 10, 4], weights: []) == nil)
    }

    static func titledSearch() -> FullTextSearch {
        FullTextSearch(
            columns: ["title", "body"],
            handler: .object(String.self) { row, text in
                let parts = row.object.split(separator: "|", maxSplits: 1).map(String.init)
                text["title"] = parts.first ?? ""
                text["body"] = parts.count > 1 ? parts[1] : ""
            })
    }

    @Test func fullTextQueriesOrderMatchesByRelevance() throws {
        let test = try TestDatabase()
        try test.database.register(Self.titledSearch(), withName: "fts")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            try tx.setObject(
                "notes|a long body that mentions cipher once among many other words here", forKey: "once",
                inCollection: "n")
            try tx.setObject("notes|cipher cipher cipher", forKey: "thrice", inCollection: "n")
            try tx.setObject("cipher|plain body", forKey: "title", inCollection: "n")
            try tx.setObject("other|nothing", forKey: "none", inCollection: "n")
        }
        try writer.read { tx throws in
            let search = try #require(tx.fullTextSearch("fts"))
            // The word in a short title outweighs it three times in a short body, and far more once in a long one.
            #expect(try search.keysByRelevance(matching: "cipher").map(\.key) == ["title", "thrice", "once"])
            // A weight of 0 leaves the titles out: the row with the word only there comes last.
            #expect(
                try search.keysByRelevance(matching: "cipher", columnWeights: ["title": 0]).map(\.key)
                    == ["thrice", "once", "title"])
            var scores: [Double] = []
            try search.enumerateKeysByRelevance(matching: "cipher") { _, _, score, _ in scores.append(score) }
            #expect(scores == scores.sorted(by: >) && scores.allSatisfy { $0 > 0 })
            let unknown = #expect(throws: DatabaseError.self) {
                try search.keysByRelevance(matching: "cipher", columnWeights: ["nope": 1])
            }
            #expect(unknown?.code == .invalidQuery)
        }
        try test.database.register(
            FullTextSearch(
                columns: ["body"], handler: .object(String.self) { row, text in text["body"] = row.object },
                version: .fts3), withName: "old")
        try writer.read { tx throws in
            let error = #expect(throws: DatabaseError.self) {
                try #require(tx.fullTextSearch("old")).keysByRelevance(matching: "cipher")
            }
            #expect(error?.code == .unsupportedFeature)
        }
    }

    @Test(arguments: [true, false])
    func aRankedViewShowsTheBestMatchesFirst(persistent: Bool) throws {
        let test = try TestDatabase()
        try test.database.register(Self.titledSearch(), withName: "fts")
        try test.database.register(
            SearchResultsView(
                fullTextSearchName: "fts",
                source: .ranked(.key { _, group in group = "" }, columnWeights: ["title": 10]),
                snippetOptions: .init(), isPersistent: persistent),
            withName: "results")
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            try tx.setObject(
                "notes|a long body that mentions cipher once among many other words here", forKey: "once",
                inCollection: "n")
            try tx.setObject("notes|cipher cipher cipher", forKey: "thrice", inCollection: "n")
            try tx.setObject("other|nothing", forKey: "none", inCollection: "n")
        }
        try Self.search(writer, "cipher")
        #expect(try Self.keys(writer) == ["thrice", "once"])
        try writer.readWrite { tx throws in
            try tx.setObject("cipher|in the title", forKey: "title", inCollection: "n")
            #expect(try Self.keys(tx) == ["title", "thrice", "once"])
            try tx.setObject("notes|cipher no more", forKey: "title", inCollection: "n")
            try tx.setObject("other|gone", forKey: "thrice", inCollection: "n")
        }
        #expect(try Self.keys(writer) == ["title", "once"])
        try writer.read { tx throws in
            let view = try Self.view(tx)
            let best = try #require(try view.relevance(forKey: "title", inCollection: "n"))
            let next = try #require(try view.relevance(forKey: "once", inCollection: "n"))
            #expect(best > next)
            #expect(try view.relevance(forKey: "none", inCollection: "n") == nil)
        }
        // A new search ranks every result again.
        try Self.search(writer, "cipher OR body")
        #expect(try Self.keys(writer) == ["once", "title"])
    }

    @Test func aRankedViewNeedsFTS4AndKnownColumns() throws {
        let test = try TestDatabase()
        try test.database.register(
            FullTextSearch(
                columns: ["body"], handler: .object(String.self) { row, text in text["body"] = row.object },
                version: .fts3),
            withName: "old")
        try test.database.register(Self.titledSearch(), withName: "fts")
        let onFTS3 = SearchResultsView(fullTextSearchName: "old", source: .ranked(.key { _, group in group = "" }))
        let error = #expect(throws: DatabaseError.self) { try test.database.register(onFTS3, withName: "ranked") }
        #expect(error?.code == .unsupportedFeature)
        let unknown = SearchResultsView(
            fullTextSearchName: "fts", source: .ranked(.key { _, group in group = "" }, columnWeights: ["nope": 2]),
            isPersistent: false)
        let unknownError = #expect(throws: DatabaseError.self) {
            try test.database.register(unknown, withName: "ranked")
        }
        #expect(unknownError?.code == .invalidQuery)
        #expect(test.database.registeredExtension("ranked") == nil)
    }
}
