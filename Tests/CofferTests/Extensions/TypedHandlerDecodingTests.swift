import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// Typed row handlers in collections without a registered codec: what an extension indexes
    /// must not depend on whether a row came from the writer's hands, a cache or the disk, so
    /// typed handlers decode ``EncodedValue``s.
    @Suite struct TypedHandlerDecodingTests {
        private struct Label: Codable, Sendable {
            var rank: Int
        }

        private func textSearch() -> FullTextSearch {
            FullTextSearch(
                columns: ["text"],
                handler: .byObject(String.self) { _, text, _, _, string in text["text"] = string },
                allowedCollections: .only(["texts"]))
        }

        private func rankIndex(versionTag: String) -> SecondaryIndex {
            SecondaryIndex(
                setup: SecondaryIndexSetup([.init("rank", .integer)]),
                handler: .byObject(Label.self) { _, values, _, _, label in values["rank"] = label.rank },
                versionTag: versionTag, allowedCollections: .only(["texts"]))
        }

        @Test(arguments: [false, true])
        func fullTextSearchFindsRowsWrittenBeforeOrAfterRegistration(registerFirst: Bool) throws {
            let test = try TestDatabase()
            if registerFirst { try test.database.register(textSearch(), withName: "search") }
            let writer = try test.connection()
            try writer.readWrite { tx in try tx.setObject("hello world", forKey: "k", inCollection: "texts") }
            if !registerFirst { try test.database.register(textSearch(), withName: "search") }
            try writer.readWrite { tx in try tx.setObject("hello again", forKey: "j", inCollection: "texts") }
            for connection in [writer, try test.connection()] {
                try connection.read { tx throws in
                    #expect(try tx.fullTextSearch("search")?.count(matching: "hello") == 2)
                    #expect(try tx.fullTextSearch("search")?.count(matching: "world") == 1)
                }
            }
        }

        @Test func aVersionTagChangeRepopulatesEveryEntryFromDisk() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            do {
                let database = try TestSupport.open(url, options: options)
                try database.register(rankIndex(versionTag: "1"), withName: "ranks")
                try database.newConnection().readWrite { tx throws in
                    for rank in 0..<5 {
                        try tx.setObject(Label(rank: rank), forKey: "k\(rank)", inCollection: "texts")
                    }
                }
                #expect(
                    try database.newConnection().read { tx in
                        try tx.secondaryIndex("ranks")?.count(matching: .matchingAll)
                    } == 5)
            }
            let database = try TestSupport.open(url, options: options)
            try database.register(rankIndex(versionTag: "2"), withName: "ranks")
            try database.newConnection().read { tx throws in
                let index = try #require(tx.secondaryIndex("ranks"))
                #expect(try index.count(matching: .matchingAll) == 5)
                #expect(try index.count(matching: DatabaseQuery(format: "WHERE rank >= ?", 3)) == 2)
            }
        }

        @Test func typedMetadataHandlersIndexEveryRowWhateverItsOrigin() throws {
            let test = try TestDatabase()
            let index = SecondaryIndex(
                setup: SecondaryIndexSetup([.init("rank", .integer)]),
                handler: .byMetadata(Label.self) { _, values, _, _, label in values["rank"] = label.rank },
                allowedCollections: .only(["texts"]))
            let writer = try test.connection()
            try writer.readWrite { tx in
                try tx.setObject("before", forKey: "b", inCollection: "texts", withMetadata: Label(rank: 1))
                try tx.setObject("no metadata", forKey: "n", inCollection: "texts")
                try tx.setObject("other type", forKey: "o", inCollection: "texts", withMetadata: "text")
            }
            try test.database.register(index, withName: "ranks")
            try writer.readWrite { tx in
                try tx.setObject("after", forKey: "a", inCollection: "texts", withMetadata: Label(rank: 2))
                try tx.replaceMetadata(Label(rank: 3), forKey: "n", inCollection: "texts")
            }
            try test.connection().read { tx throws in
                let index = try #require(tx.secondaryIndex("ranks"))
                #expect(try index.count(matching: .matchingAll) == 3)
                let keys = try index.keys(matching: DatabaseQuery(format: "ORDER BY rank")).map(\.key)
                #expect(keys == ["b", "a", "n"])
            }
        }

        @Test func lazyValuesDecodeEncodedValuesAsTheAskedType() throws {
            let test = try TestDatabase()
            let seen = Locked<[String]>([])
            var hooks = Hooks()
            hooks.didModifyRow = { _, _, key, object, metadata, _ in
                let text = try object.value(as: String.self) ?? "-"
                let rank = try metadata.value(as: Label.self)?.rank
                let wrong = try object.value(as: Int.self)
                seen.append("\(key) \(text) \(rank.map(String.init) ?? "-") \(wrong.map(String.init) ?? "-")")
            }
            try test.database.register(hooks, withName: "hooks")
            let connection = try test.connection()
            try connection.readWrite { tx throws in
                try tx.setObject("a", forKey: "k", inCollection: "texts", withMetadata: Label(rank: 7))
            }
            connection.flushMemory(.all)
            // A touch reads both parts back from disk.
            try connection.readWrite { tx in try tx.touchRow(forKey: "k", inCollection: "texts") }
            #expect(seen.value == ["k a 7 -", "k a 7 -"])
        }
    }
}
