import CofferTestSupport
import Foundation
import Synchronization
import Testing

@testable import Coffer

extension Extensions {
    /// Handlers that take one row value: typed decoding on every path, re-runs decided by the
    /// handler's kind, and handlers callable by hand in a test.
    @Suite struct OneValueHandlerTests {
        struct Note: Codable, Sendable, Equatable {
            var title: String
            var words: Int
        }

        struct Tag: Codable, Sendable, Equatable {
            var label: String
        }

        static let notes = TypedCollection<Note, Tag>("notes")

        private func index(_ handler: SecondaryIndexHandler) -> SecondaryIndex {
            SecondaryIndex(
                setup: SecondaryIndexSetup([.init("title", .text), .init("words", .integer), .init("tag", .text)]),
                handler: handler, allowedCollections: .only(["notes"]))
        }

        private func titles(_ connection: Connection, _ query: String) throws -> [String] {
            try connection.read { tx in
                try tx.secondaryIndex("index")?.keys(matching: DatabaseQuery(format: query)).map(\.key).sorted() ?? []
            }
        }

        @Test(arguments: [false, true])
        func aTypedObjectHandlerIndexesRowsFromEveryPath(registered: Bool) throws {
            let test = try TestDatabase()
            if registered { try test.database.register(Self.notes) }
            let writer = try test.connection()
            try writer.readWrite { tx in
                try tx.set(Note(title: "before", words: 3), forKey: "b", in: Self.notes)
                // A registered Note codec refuses other types; the default codec stores anything.
                if !registered { try tx.setObject("not a note", forKey: "s", inCollection: "notes") }
            }
            try test.database.register(
                index(
                    .object(Note.self) { row, values in
                        values["title"] = row.object.title
                        values["words"] = row.object.words
                        #expect(row.collection == "notes")
                        #expect(row.key == row.object.title.prefix(1).description)
                    }), withName: "index")
            try writer.readWrite { tx in try tx.set(Note(title: "after", words: 9), forKey: "a", in: Self.notes) }
            for connection in [writer, try test.connection()] {
                #expect(try titles(connection, "WHERE words > 1") == ["a", "b"])
                #expect(try titles(connection, "WHERE title = 'before'") == ["b"])
                let found = try connection.read { tx in
                    try tx.secondaryIndex("index")?.objects(
                        matching: DatabaseQuery(format: "ORDER BY words"), in: Self.notes)
                }
                #expect(found?.map(\.key) == ["b", "a"])
                #expect(found?.map(\.object.title) == ["before", "after"])
            }
        }

        @Test func eachKindReRunsOnlyForWhatItReads() throws {
            let test = try TestDatabase()
            try test.database.register(Self.notes)
            let runs = Mutex([String: Int]())
            @Sendable func count(_ kind: String) { runs.withLock { $0[kind, default: 0] += 1 } }
            let handlers: [(String, SecondaryIndexHandler)] = [
                (
                    "key",
                    .key { row, values in
                        count("key"); values["title"] = row.key
                    }
                ),
                (
                    "object",
                    .object(Note.self) { row, values in
                        count("object"); values["title"] = row.object.title
                    }
                ),
                (
                    "metadata",
                    .metadata(Tag.self) { row, values in
                        count("metadata"); values["tag"] = row.metadata.label
                    }
                ),
                (
                    "row",
                    .row(Note.self, Tag.self) { row, values in
                        count("row")
                        values["title"] = row.object.title
                        values["tag"] = row.metadata?.label
                    }
                ),
            ]
            for (name, handler) in handlers { try test.database.register(index(handler), withName: name) }
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.set(Note(title: "t", words: 1), forKey: "k", in: Self.notes, metadata: Tag(label: "x"))
            }
            #expect(runs.withLock { $0 } == ["key": 1, "object": 1, "metadata": 1, "row": 1])
            try connection.readWrite { tx in try tx.replaceMetadata(Tag(label: "y"), forKey: "k", in: Self.notes) }
            #expect(runs.withLock { $0 } == ["key": 1, "object": 1, "metadata": 2, "row": 2])
            try connection.readWrite { tx in try tx.replace(Note(title: "u", words: 2), forKey: "k", in: Self.notes) }
            #expect(runs.withLock { $0 } == ["key": 1, "object": 2, "metadata": 2, "row": 3])
            try connection.read { tx throws in
                let query = try DatabaseQuery(format: "WHERE tag = 'y'")
                #expect(try tx.secondaryIndex("metadata")?.count(matching: query) == 1)
                #expect(try tx.secondaryIndex("row")?.count(matching: DatabaseQuery(format: "WHERE title = 'u'")) == 1)
            }
        }

        @Test func untypedHandlersSeeWhateverTheRowHolds() throws {
            let test = try TestDatabase()
            let seen = Mutex([String]())
            try test.database.register(
                index(
                    .row { row, values in
                        seen.withLock { $0.append("\(row.key):\(type(of: row.object)):\(row.metadata != nil)") }
                        values["title"] = row.key
                    }), withName: "index")
            try test.connection().readWrite { tx in
                try tx.setObject("text", forKey: "s", inCollection: "notes", withMetadata: 1)
            }
            #expect(seen.withLock { $0 } == ["s:EncodedValue:true"])
        }

        @Test func fullTextSearchTakesATypedOneValueHandler() throws {
            let test = try TestDatabase()
            try test.database.register(
                FullTextSearch(
                    columns: ["title"],
                    handler: .object(Note.self) { row, values in values["title"] = row.object.title }),
                withName: "search")
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.set(Note(title: "encrypted storage", words: 2), forKey: "n", in: Self.notes)
            }
            #expect(try connection.read { tx in try tx.fullTextSearch("search")?.count(matching: "storage") } == 1)
            let found = try connection.read { tx in
                try tx.fullTextSearch("search")?.objects(matching: "storage", in: Self.notes)
            }
            #expect(found?.map(\.object) == [Note(title: "encrypted storage", words: 2)])
            let elsewhere = try connection.read { tx in
                try tx.fullTextSearch("search")?.objects(matching: "storage", in: CollectionHandle<Note>("other"))
            }
            #expect(elsewhere?.isEmpty == true)
        }

        @Test func aHandlerRunsOnARowBuiltByHand() throws {
            let test = try TestDatabase()
            let handler = SecondaryIndexHandler.object(Note.self) { row, values in values["words"] = row.object.words }
            let values = try test.connection().read { tx in
                try handler.values(
                    collection: "notes", key: "n", object: Note(title: "x", words: 7), metadata: nil, in: tx,
                    startingWith: [:])
            }
            #expect(values["words"] as? Int == 7)
            let skipped = try test.connection().read { tx in
                try handler.values(
                    collection: "notes", key: "n", object: "a string", metadata: nil, in: tx, startingWith: [:])
            }
            #expect(skipped.isEmpty)
            let direct = try test.connection().read { tx in
                var values: [String: any DatabaseValueConvertible] = [:]
                try Self.wordCount(
                    ObjectRow(collection: "c", key: "k", object: Note(title: "", words: 4), transaction: tx), &values)
                return values
            }
            #expect(direct["words"] as? Int == 4)
        }

        @Sendable private static func wordCount(
            _ row: ObjectRow<Note>, _ values: inout [String: any DatabaseValueConvertible]
        ) throws {
            values["words"] = row.object.words
        }

        @Test func hooksTakeOneRowValue() throws {
            let test = try TestDatabase()
            let events = Mutex([String]())
            var hooks = Hooks(allowedCollections: .only(["notes"]))
            hooks.didModify = { row in
                let note = try row.object(as: Note.self)
                events.withLock { $0.append("modify \(row.key) \(note?.title ?? "-") \(row.flags.rawValue)") }
            }
            hooks.willRemove = { row in
                try row.transaction.removeObject(forKey: row.key, inCollection: "lines")
                events.withLock { $0.append("remove \(row.collection)/\(row.key)") }
            }
            #expect(hooks.didModifyRow != nil && hooks.willRemoveRow != nil && hooks.didRemoveRow == nil)
            try test.database.register(hooks, withName: "hooks")
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.setObject("line", forKey: "n", inCollection: "lines")
                try tx.set(Note(title: "t", words: 1), forKey: "n", in: Self.notes)
                try tx.touchObject(forKey: "n", in: Self.notes)
                try tx.removeObject(forKey: "n", in: Self.notes)
            }
            #expect(events.withLock { $0 } == ["modify n t 13", "modify n t 16", "remove notes/n"])
            #expect(try connection.read { tx in try tx.numberOfKeys(inCollection: "lines") } == 0)
        }

        @Test func theOldPositionalHookFormStillSetsTheHook() throws {
            let test = try TestDatabase()
            let keys = Mutex([String]())
            var hooks = Hooks()
            hooks.didModifyRow = { _, collection, key, _, _, _ in keys.withLock { $0.append("\(collection)/\(key)") } }
            #expect(hooks.didModify != nil)
            try test.database.register(hooks, withName: "hooks")
            try test.connection().readWrite { tx in try tx.setObject("v", forKey: "k", inCollection: "c") }
            #expect(keys.withLock { $0 } == ["c/k"])
        }

        @Test func aHookCanBeCalledWithARowBuiltByHand() throws {
            let test = try TestDatabase()
            let hook: Hooks.ModifyHook = { row in
                try row.transaction.setObject(try row.object(as: String.self), forKey: row.key, inCollection: "copy")
            }
            let connection = try test.connection()
            try connection.readWrite { tx in
                try hook(
                    Hooks.ModifiedRow(
                        transaction: tx, collection: "c", key: "k", object: "v", metadata: nil, flags: [.inserted]))
            }
            #expect(try connection.read { tx in try tx.object(forKey: "k", inCollection: "copy") } != nil)
        }
    }
}
