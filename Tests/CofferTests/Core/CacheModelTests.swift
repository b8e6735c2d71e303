import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Random transactions on several connections checked against a plain dictionary: whatever the
/// writes, rollbacks, enumerations that write from their body, cache sizes and policies, every
/// connection reads exactly what the model holds — a cache never keeps a row the database does
/// not, and an untyped read of an automatic-JSON row is always an ``EncodedValue``.
@Suite struct CacheModelTests {
    /// One row of the model: object and metadata (nil: none).
    private struct Row: Equatable {
        var object: Int
        var metadata: Int?
    }

    private typealias Model = [String: [String: Row]]

    private static let collections = ["typed", "auto"]
    private static let keys = (0..<8).map { "k\($0)" }

    private struct Rollback: Error {}

    @Test(arguments: [(UInt64(1), ObjectPolicy.containment), (2, .share), (3, .copy), (4, .share)])
    func randomTransactionsMatchTheModel(seed: UInt64, policy: ObjectPolicy) throws {
        var rng = SeededGenerator(seed: seed)
        let test = try TestDatabase()
        test.database.registerCodable(Int.self, metadata: Int.self, forCollection: "typed")
        for collection in Self.collections {
            test.database.setObjectPolicy(policy, forCollection: collection)
            test.database.setMetadataPolicy(policy, forCollection: collection)
        }
        let connections = [
            try test.connection(),
            try test.connection(config: ConnectionConfig(objectCacheLimit: 3, metadataCacheLimit: 2)),
            try test.connection(config: ConnectionConfig(objectCacheEnabled: false)),
        ]
        var model: Model = [:]
        for step in 0..<150 {
            let connection = connections[Int.random(in: 0..<connections.count, using: &rng)]
            var next = model
            let rollsBack = Int.random(in: 0..<8, using: &rng) == 0
            do {
                try connection.readWrite { tx in
                    for _ in 0..<Int.random(in: 1...6, using: &rng) {
                        try Self.randomOperation(tx, &next, &rng)
                        // Reads inside the transaction see its own writes.
                        try Self.check(tx, against: next, "step \(step) inside")
                    }
                    if rollsBack { throw Rollback() }
                }
                model = next
            } catch is Rollback {
                // Nothing of it stays.
            }
            if Int.random(in: 0..<10, using: &rng) == 0 {
                connections[Int.random(in: 0..<connections.count, using: &rng)].flushMemory(.caches)
            }
            for (index, reader) in connections.enumerated() {
                try reader.read { tx in
                    try Self.check(tx, against: model, "step \(step) seed \(seed) connection \(index)")
                }
            }
        }
    }

    /// One random write, or an enumeration that writes from its body, applied to `model` too.
    private static func randomOperation(
        _ tx: ReadWriteTransaction, _ model: inout Model, _ rng: inout SeededGenerator
    ) throws {
        let collection = collections[Int.random(in: 0..<collections.count, using: &rng)]
        let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
        let value = Int.random(in: 0..<1_000, using: &rng)
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1, 2:
            let metadata: Int? = Bool.random(using: &rng) ? value + 1 : nil
            try tx.setObject(value, forKey: key, inCollection: collection, withMetadata: metadata)
            model[collection, default: [:]][key] = Row(object: value, metadata: metadata)
        case 3:
            try tx.replaceObject(value, forKey: key, inCollection: collection)
            model[collection]?[key]?.object = value
        case 4:
            let metadata: Int? = Bool.random(using: &rng) ? value : nil
            try tx.replaceMetadata(metadata, forKey: key, inCollection: collection)
            if model[collection]?[key] != nil { model[collection]?[key]?.metadata = metadata }
        case 5:
            try tx.removeObject(forKey: key, inCollection: collection)
            model[collection]?[key] = nil
        case 6:
            let some = keys.filter { _ in Bool.random(using: &rng) }
            try tx.removeObjects(forKeys: some, inCollection: collection)
            for key in some { model[collection]?[key] = nil }
        case 7:
            if Int.random(in: 0..<3, using: &rng) == 0 {
                try tx.removeAllObjects(inCollection: collection)
                model[collection] = nil
            } else {
                try tx.touchRow(forKey: key, inCollection: collection)
            }
        default:
            // A key-list enumeration whose body removes rows: with stop set it ends quietly,
            // without it the next call throws; either way the removals stand.
            let listed = keys.filter { _ in Bool.random(using: &rng) }
            let stops = Bool.random(using: &rng)
            var removed: [String] = []
            do {
                try tx.enumerateRows(forKeys: listed, inCollection: collection) { index, _, _, stop in
                    guard removed.isEmpty else { return }
                    removed = Array(listed[index...].prefix(3))
                    for key in removed { try tx.removeObject(forKey: key, inCollection: collection) }
                    stop = stops
                }
            } catch let error as DatabaseError where error.code == .mutationDuringEnumeration {
                #expect(!stops)
            }
            for key in removed { model[collection]?[key] = nil }
        }
    }

    /// Every read of every key agrees with `model`.
    private static func check(_ tx: ReadTransaction, against model: Model, _ context: String) throws {
        for collection in collections {
            let rows = model[collection] ?? [:]
            #expect(try tx.numberOfKeys(inCollection: collection) == rows.count, "\(context)")
            for key in keys {
                let row = rows[key]
                #expect(try tx.hasObject(forKey: key, inCollection: collection) == (row != nil), "\(context) \(key)")
                #expect(try tx.object(forKey: key, inCollection: collection, as: Int.self) == row?.object, "\(context)")
                #expect(
                    try tx.metadata(forKey: key, inCollection: collection, as: Int.self) == row?.metadata, "\(context)")
                let untyped = try tx.object(forKey: key, inCollection: collection)
                if collection == "auto", let untyped { #expect(untyped is EncodedValue, "\(context) \(key)") }
            }
            var listed: [String: Int] = [:]
            try tx.enumerateObjects(forKeys: keys, inCollection: collection) { index, object, _ in
                guard let object else { return }
                listed[keys[index]] =
                    (object as? EncodedValue).flatMap { try? $0.decode(as: Int.self) } ?? object as? Int
            }
            #expect(listed == rows.mapValues(\.object), "\(context)")
        }
    }
}

/// Keys that Swift's `String ==` calls equal (canonically equivalent) but SQLite stores as two
/// rows: every cache and changeset must keep them apart, as the database does.
@Suite struct CanonicallyEquivalentKeyTests {
    private static let composed = "caf\u{E9}"  // é as one scalar
    private static let decomposed = "cafe\u{301}"  // e + combining acute accent

    @Test func twoSpellingsAreTwoRowsOnEveryConnection() throws {
        #expect(Self.composed == Self.decomposed)  // Swift's equality, which the database does not share
        let test = try TestDatabase()
        test.database.registerCodable(String.self, forCollection: "c")
        test.database.setObjectPolicy(.share, forCollection: "c")
        let writer = try test.connection()
        let sibling = try test.connection()
        try writer.readWrite { tx in
            try tx.setObject("composed", forKey: Self.composed, inCollection: "c")
            try tx.setObject("decomposed", forKey: Self.decomposed, inCollection: "c")
        }
        for connection in [writer, sibling, writer] {
            try connection.read { tx throws in
                #expect(try tx.numberOfKeys(inCollection: "c") == 2)
                #expect(try tx.object(forKey: Self.composed, inCollection: "c", as: String.self) == "composed")
                #expect(try tx.object(forKey: Self.decomposed, inCollection: "c", as: String.self) == "decomposed")
            }
        }
        try writer.readWrite { tx in try tx.removeObject(forKey: Self.decomposed, inCollection: "c") }
        for connection in [writer, sibling] {
            try connection.read { tx throws in
                #expect(try tx.object(forKey: Self.composed, inCollection: "c", as: String.self) == "composed")
                #expect(try tx.object(forKey: Self.decomposed, inCollection: "c", as: String.self) == nil)
                #expect(try !tx.hasObject(forKey: Self.decomposed, inCollection: "c"))
            }
        }
        // A key list naming both spellings reports each with its own row.
        try writer.readWrite { tx in try tx.setObject("decomposed", forKey: Self.decomposed, inCollection: "c") }
        for connection in [writer, sibling] {
            connection.flushMemory(.caches)
            var seen: [Int: String] = [:]
            try connection.read { tx in
                try tx.enumerateObjects(forKeys: [Self.composed, Self.decomposed], inCollection: "c") {
                    index, object, _ in
                    seen[index] = object as? String
                }
            }
            #expect(seen == [0: "composed", 1: "decomposed"])
        }
        let keys =
            CollectionKey(collection: "c", key: Self.composed) < CollectionKey(collection: "c", key: Self.decomposed)
        #expect(
            keys
                != (CollectionKey(collection: "c", key: Self.decomposed)
                    < CollectionKey(collection: "c", key: Self.composed)))
    }
}
