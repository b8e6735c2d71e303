import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Every enumeration: in one collection, in all collections, over a key list; stop flags,
/// filters, nesting, and mutation inside an enumeration.
@Suite struct EnumerationTests {
    /// A populated database.
    ///
    /// "notes": n0…n9 (Note, Tag metadata on even keys) through a counting codec; "other": o0…o2 (Int);
    /// "": d (String). Key "shared" exists in "notes" and "other".
    private func populated(_ kind: TestKeyKind = .raw) throws -> (TestDatabase, CountingCodec<Note>) {
        let test = try TestDatabase(kind)
        let codec = CountingCodec<Note>()
        test.database.registerObjectSerializer(codec.chain, forCollection: "notes")
        test.database.registerMetadataSerializer(SerializerChain(codec: .codable(Tag.self)), forCollection: "notes")
        try test.connection().readWrite { tx in
            for index in 0..<10 {
                try tx.setObject(
                    Note(title: "t\(index)", body: "b"), forKey: "n\(index)", inCollection: "notes",
                    withMetadata: index.isMultiple(of: 2) ? Tag(label: "even", rank: index) : nil)
            }
            try tx.setObject(Note(title: "shared", body: "b"), forKey: "shared", inCollection: "notes")
            for index in 0..<3 { try tx.setObject(index, forKey: "o\(index)", inCollection: "other") }
            try tx.setObject(100, forKey: "shared", inCollection: "other")
            try tx.setObject("default", forKey: "d", inCollection: nil)
        }
        return (test, codec)
    }

    private let noteKeys = Set((0..<10).map { "n\($0)" } + ["shared"])

    @Test(arguments: TestKeyKind.allCases)
    func collectionsAndKeys(kind: TestKeyKind) throws {
        let (test, _) = try populated(kind)
        try test.connection().read { tx throws in
            var collections: [String] = []
            try tx.enumerateCollections {
                collections.append($0); _ = $1
            }
            #expect(Set(collections) == ["notes", "other", ""])
            #expect(collections.count == 3)

            var forShared: [String] = []
            try tx.enumerateCollections(forKey: "shared") { collection, _ in forShared.append(collection) }
            #expect(Set(forShared) == ["notes", "other"])

            var keys: [String] = []
            try tx.enumerateKeys(inCollection: "notes") { key, _ in keys.append(key) }
            #expect(Set(keys) == noteKeys)
            #expect(keys.count == noteKeys.count)

            var defaultKeys: [String] = []
            try tx.enumerateKeys(inCollection: nil) { key, _ in defaultKeys.append(key) }
            #expect(defaultKeys == ["d"])

            var all: [CollectionKey] = []
            try tx.enumerateKeysInAllCollections { collection, key, _ in
                all.append(CollectionKey(collection: collection, key: key))
            }
            #expect(all.count == 16)
            #expect(Set(all).count == 16)
            #expect(all.contains(CollectionKey(collection: "", key: "d")))
        }
    }

    @Test func objectsMetadataAndRowsInOneCollection() throws {
        let (test, _) = try populated()
        try test.connection().read { tx throws in
            var objects: [String: Note] = [:]
            try tx.enumerateKeysAndObjects(inCollection: "notes") { key, object, _ in objects[key] = object as? Note }
            #expect(objects.count == 11)
            #expect(objects["n3"] == Note(title: "t3", body: "b"))

            var typed: [String: Int] = [:]
            try tx.enumerateKeysAndObjects(inCollection: "other", as: Int.self) { key, value, _ in typed[key] = value }
            #expect(typed == ["o0": 0, "o1": 1, "o2": 2, "shared": 100])

            var automatic: [String] = []
            try tx.enumerateKeysAndObjects(inCollection: nil, as: String.self) { _, value, _ in automatic.append(value)
            }
            #expect(automatic == ["default"])

            var metadata: [String: Tag?] = [:]
            try tx.enumerateKeysAndMetadata(inCollection: "notes") { key, value, _ in metadata[key] = value as? Tag }
            #expect(metadata.count == 11)
            #expect(metadata["n4"] == Tag(label: "even", rank: 4))
            #expect(metadata["n5"] == .some(nil))

            var rows = 0
            try tx.enumerateRows(inCollection: "notes") { key, object, metadata, _ in
                rows += 1
                let note = object as? Note
                #expect(note?.title == (key == "shared" ? "shared" : "t" + key.dropFirst()))
                if let index = Int(key.dropFirst()), key != "shared" {
                    #expect((metadata as? Tag)?.rank == (index.isMultiple(of: 2) ? index : nil))
                }
            }
            #expect(rows == 11)
        }
    }

    @Test func objectsMetadataAndRowsInAllCollections() throws {
        let (test, _) = try populated()
        try test.connection().read { tx throws in
            var objects: [CollectionKey: any Sendable] = [:]
            try tx.enumerateKeysAndObjectsInAllCollections { collection, key, object, _ in
                objects[CollectionKey(collection: collection, key: key)] = object
            }
            #expect(objects.count == 16)
            #expect(objects[CollectionKey(collection: "other", key: "shared")] is EncodedValue)
            #expect(
                objects[CollectionKey(collection: "notes", key: "shared")] as? Note == Note(title: "shared", body: "b"))

            var metadataCount = 0
            var withMetadata = 0
            try tx.enumerateKeysAndMetadataInAllCollections { _, _, metadata, _ in
                metadataCount += 1
                if metadata != nil { withMetadata += 1 }
            }
            #expect(metadataCount == 16)
            #expect(withMetadata == 5)

            var rows: [CollectionKey] = []
            try tx.enumerateRowsInAllCollections { collection, key, _, _, _ in
                rows.append(CollectionKey(collection: collection, key: key))
            }
            #expect(Set(rows).count == 16)
        }
    }

    @Test func filtersSkipRowsWithoutDecodingThem() throws {
        let (test, codec) = try populated()
        let reader = try test.connection(
            config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false))
        let before = codec.decodes.value
        try reader.read { tx throws in
            var seen: [String] = []
            try tx.enumerateKeysAndObjects(inCollection: "notes", filter: { $0 == "n1" || $0 == "n2" }) { key, _, _ in
                seen.append(key)
            }
            #expect(Set(seen) == ["n1", "n2"])
            #expect(codec.decodes.value == before + 2)

            var typed: [Note] = []
            try tx.enumerateKeysAndObjects(inCollection: "notes", as: Note.self, filter: { $0 == "n3" }) { _, note, _ in
                typed.append(note)
            }
            #expect(typed == [Note(title: "t3", body: "b")])

            var all: [CollectionKey] = []
            try tx.enumerateKeysAndObjectsInAllCollections(filter: { collection, _ in collection == "other" }) {
                collection, key, _, _ in all.append(CollectionKey(collection: collection, key: key))
            }
            #expect(all.count == 4)

            var metadataKeys: [String] = []
            try tx.enumerateKeysAndMetadata(inCollection: "notes", filter: { $0.hasSuffix("4") }) { key, _, _ in
                metadataKeys.append(key)
            }
            #expect(metadataKeys == ["n4"])

            var allMetadata = 0
            try tx.enumerateKeysAndMetadataInAllCollections(filter: { _, key in key == "shared" }) { _, _, _, _ in
                allMetadata += 1
            }
            #expect(allMetadata == 2)

            var rows: [String] = []
            try tx.enumerateRows(inCollection: "notes", filter: { $0 == "n9" }) { key, _, _, _ in rows.append(key) }
            #expect(rows == ["n9"])

            var allRows = 0
            try tx.enumerateRowsInAllCollections(filter: { collection, _ in collection.isEmpty }) { _, _, _, _, _ in
                allRows += 1
            }
            #expect(allRows == 1)
        }
        // Only rows that passed a filter were decoded: n1, n2, n3, n9 (n4's row needed metadata only).
        #expect(codec.decodes.value == before + 4)
    }

    @Test func stopEndsEveryEnumeration() throws {
        let (test, _) = try populated()
        try test.connection().read { tx throws in
            var count = 0
            try tx.enumerateCollections { _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateCollections(forKey: "shared") { _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateKeys(inCollection: "notes") { _, stop in
                count += 1; stop = count == 3
            }
            #expect(count == 3)
            count = 0
            try tx.enumerateKeysInAllCollections { _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateKeysAndObjects(inCollection: "notes") { _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateKeysAndObjectsInAllCollections { _, _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateKeysAndMetadata(inCollection: "notes") { _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateKeysAndMetadataInAllCollections { _, _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateRows(inCollection: "notes") { _, _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateRowsInAllCollections { _, _, _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateObjects(forKeys: ["n1", "n2", "n3"], inCollection: "notes") { _, _, stop in
                count += 1
                stop = true
            }
            #expect(count == 1)
            count = 0
            try tx.enumerateRows(forKeys: ["x", "y"], inCollection: "notes") { _, _, _, stop in
                count += 1; stop = true
            }
            #expect(count == 1)
        }
    }

    @Test(arguments: [false, true])
    func keyListsAreUnorderedAndReportMissingKeys(warmCache: Bool) throws {
        let (test, _) = try populated()
        let reader = try test.connection()
        if warmCache {
            // Half the rows come from the cache, half from the file.
            try reader.read { tx in
                for index in Array(stride(from: 0, to: 10, by: 2)) + [9] {
                    _ = try tx.objectAndMetadata(forKey: "n\(index)", inCollection: "notes")
                }
            }
        }
        let keys = ["n9", "missing", "n0", "n5", "n0", "gone", "n4"]
        try reader.read { tx throws in
            var objects: [Int: Note?] = [:]
            try tx.enumerateObjects(forKeys: keys, inCollection: "notes") { index, object, _ in
                #expect(objects[index] == nil, "index \(index) reported twice")
                objects[index] = object as? Note
            }
            #expect(objects.count == keys.count)
            for (index, key) in keys.enumerated() {
                let expected = key.hasPrefix("n") ? Note(title: "t" + key.dropFirst(), body: "b") : nil
                #expect(objects[index] == .some(expected), "\(key)")
            }

            var metadata: [Int: Tag?] = [:]
            try tx.enumerateMetadata(forKeys: keys, inCollection: "notes") { index, value, _ in
                metadata[index] = value as? Tag
            }
            #expect(metadata.count == keys.count)
            #expect(metadata[0] == .some(nil))  // n9: no metadata
            #expect(metadata[1] == .some(nil))  // missing row
            #expect(metadata[2] == Tag(label: "even", rank: 0))
            #expect(metadata[6] == Tag(label: "even", rank: 4))

            var rows: [Int: String] = [:]
            try tx.enumerateRows(forKeys: keys, inCollection: "notes") { index, object, metadata, _ in
                rows[index] = "\((object as? Note)?.title ?? "-")/\((metadata as? Tag)?.rank ?? -1)"
            }
            #expect(rows == [0: "t9/-1", 1: "-/-1", 2: "t0/0", 3: "t5/-1", 4: "t0/0", 5: "-/-1", 6: "t4/4"])

            var empty = 0
            try tx.enumerateObjects(forKeys: [], inCollection: "notes") { _, _, _ in empty += 1 }
            #expect(empty == 0)
        }
    }

    /// Stored `Data` rows are handed out from one reused buffer when nothing is cached: the values
    /// a body keeps stay intact whatever the rows after them hold (larger, smaller, inline-sized, empty).
    @Test(arguments: [false, true])
    func keptDataValuesSurviveTheRowsAfterThem(cached: Bool) throws {
        let test = try TestDatabase(.raw)
        test.database.registerData(forCollection: "blobs")
        let sizes = [
            300, 5, 0, 1_000, 20, 14, 15, 299, 4_096, 1, 64, 0, ReadTransaction.lentBytesLimit + 1, 250, 70_000, 9,
        ]
        var expected: [String: Data] = [:]
        for (index, size) in sizes.enumerated() {
            let key = "k" + String(index + 10)  // two digits: key order is index order
            expected[key] = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
        }
        try test.connection().readWrite { tx in
            for (key, value) in expected { try tx.setObject(value, forKey: key, inCollection: "blobs") }
        }
        var config = ConnectionConfig()
        config.objectCacheEnabled = cached
        try test.connection(config: config).read { tx in
            var kept: [String: Data] = [:]
            var everyOther = false
            try tx.enumerateKeysAndObjects(inCollection: "blobs", as: Data.self) { key, value, _ in
                #expect(value == expected[key], "\(key) as read")
                everyOther.toggle()
                if everyOther { kept[key] = value }
            }
            #expect(kept.count == (sizes.count + 1) / 2)
            for (key, value) in kept { #expect(value == expected[key], "\(key) after the rows that followed it") }
        }
    }

    @Test func keyListsLongerThanOneBatch() throws {
        let test = try TestDatabase()
        try test.connection().readWrite { tx in
            for index in 0..<1200 {
                try tx.setObject(index, forKey: "k\(index)", inCollection: "c", withMetadata: -index)
            }
        }
        let keys = (0..<1300).map { "k\($0)" }
        let reader = try test.connection(config: ConnectionConfig(objectCacheLimit: 100, metadataCacheLimit: 100))
        try reader.read { tx throws in
            var found = 0
            var missing = 0
            try tx.enumerateRows(forKeys: keys, inCollection: "c") { index, object, metadata, _ in
                if index < 1200 {
                    let value = try (object as? EncodedValue)?.decode(as: Int.self)
                    let meta = try (metadata as? EncodedValue)?.decode(as: Int.self)
                    #expect(value == index && meta == -index)
                    found += 1
                } else {
                    #expect(object == nil && metadata == nil)
                    missing += 1
                }
            }
            #expect(found == 1200)
            #expect(missing == 100)
        }
    }

    @Test func nestedEnumerationOfTheSameKind() throws {
        let (test, _) = try populated()
        try test.connection().read { tx throws in
            var pairs = 0
            try tx.enumerateKeys(inCollection: "other") { _, _ in
                try tx.enumerateKeys(inCollection: "other") { _, _ in pairs += 1 }
            }
            #expect(pairs == 16)
            var rowPairs = 0
            try tx.enumerateRows(inCollection: "notes") { _, _, _, _ in
                try tx.enumerateRows(inCollection: "notes") { _, _, _, _ in rowPairs += 1 }
                // And single-row reads inside, which share statements with nothing.
                _ = try tx.object(forKey: "n1", inCollection: "notes")
            }
            #expect(rowPairs == 121)
            var mixed = 0
            try tx.enumerateCollections { collection, _ in
                try tx.enumerateKeys(inCollection: collection) { _, _ in mixed += 1 }
            }
            #expect(mixed == 16)
        }
    }

    @Test func mutationInsideEnumerationWithoutStopThrows() throws {
        let (test, _) = try populated()
        let writer = try test.connection()
        let mutations: [(ReadWriteTransaction) throws -> Void] = [
            { try $0.setObject(Note(title: "new", body: "b"), forKey: "added", inCollection: "notes") },
            { try $0.removeObject(forKey: "n1", inCollection: "notes") },
            { try $0.replaceObject(Note(title: "r", body: "b"), forKey: "n2", inCollection: "notes") },
            { try $0.replaceMetadata(nil, forKey: "n2", inCollection: "notes") },
            { try $0.removeObjects(forKeys: ["n3"], inCollection: "notes") },
            { try $0.removeAllObjects(inCollection: "other") },
            { try $0.removeAllObjectsInAllCollections() },
        ]
        for mutate in mutations {
            let error = try #require(throws: DatabaseError.self) {
                try writer.readWrite { tx in
                    try tx.enumerateKeys(inCollection: "notes") { _, _ in try mutate(tx) }
                }
            }
            #expect(error.code == .mutationDuringEnumeration)
        }
        // Every one of those transactions rolled back.
        #expect(test.database.snapshot == 1)
        #expect(try writer.read { tx in try tx.numberOfKeysInAllCollections() } == 16)
        // Other enumerations detect it too.
        let error = try #require(throws: DatabaseError.self) {
            try writer.readWrite { tx in
                try tx.enumerateRowsInAllCollections { collection, key, _, _, _ in
                    try tx.removeObject(forKey: key, inCollection: collection)
                }
            }
        }
        #expect(error.code == .mutationDuringEnumeration)
    }

    @Test func mutationWithStopAndTouchesAreFine() throws {
        let (test, _) = try populated()
        let writer = try test.connection()
        try writer.readWrite { tx in
            try tx.enumerateKeys(inCollection: "notes") { key, stop in
                try tx.removeObject(forKey: key, inCollection: "notes")
                stop = true
            }
            try tx.enumerateKeysAndObjects(inCollection: "other") { key, _, _ in
                try tx.touchObject(forKey: key, inCollection: "other")
            }
        }
        #expect(test.database.snapshot == 2)
        #expect(try writer.read { tx in try tx.numberOfKeys(inCollection: "notes") } == 10)
        // Collect first, mutate after: the supported way to change many rows.
        try writer.readWrite { tx in
            var doomed: [String] = []
            try tx.enumerateKeys(inCollection: "notes") { key, _ in doomed.append(key) }
            try tx.removeObjects(forKeys: doomed, inCollection: "notes")
        }
        #expect(try writer.read { tx in try tx.numberOfKeys(inCollection: "notes") } == 0)
    }

    @Test func errorsThrownFromTheBodyPropagate() throws {
        struct Stop: Error {}
        let (test, _) = try populated()
        try test.connection().read { tx throws in
            #expect(throws: Stop.self) { try tx.enumerateKeys(inCollection: "notes") { _, _ in throw Stop() } }
            // The statement was reset: the same enumeration works again.
            var count = 0
            try tx.enumerateKeys(inCollection: "notes") { _, _ in count += 1 }
            #expect(count == 11)
        }
    }
}
