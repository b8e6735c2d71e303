import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Random writes through typed collections and through the string-keyed API, on connections with
/// and without caches, checked against a dictionary: both APIs read the same rows, whichever wrote
/// them, registered or not, cached or not.
@Suite struct TypedCollectionModelTests {
    struct Item: Codable, Sendable, Equatable {
        var name: String
        var count: Int
    }

    struct Info: Codable, Sendable, Equatable {
        var pinned: Bool
    }

    private struct Row: Equatable {
        var item: Item
        var info: Info?
    }

    private static let items = TypedCollection<Item, Info>("items")
    private static let keys = (0..<6).map { "k\($0)" }

    @Test(arguments: [(UInt64(11), false), (12, true), (13, false), (14, true)])
    func randomTypedAndStringWritesMatchTheModel(seed: UInt64, registered: Bool) throws {
        var rng = SeededGenerator(seed: seed)
        let test = try TestDatabase()
        if registered { try test.database.register(Self.items) }
        let connections = [
            try test.connection(),
            try test.connection(config: ConnectionConfig(objectCacheLimit: 2, metadataCacheLimit: 2)),
            try test.connection(config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false)),
        ]
        var model: [String: Row] = [:]
        for step in 0..<120 {
            let connection = connections[Int.random(in: 0..<connections.count, using: &rng)]
            try connection.readWrite { tx in
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    try Self.randomWrite(tx, &model, &rng)
                }
                try Self.check(tx, model, "step \(step), inside the writing transaction")
            }
            for (index, reader) in connections.enumerated() {
                try reader.read { tx in try Self.check(tx, model, "step \(step), connection \(index)") }
            }
        }
    }

    private static func randomWrite(
        _ tx: ReadWriteTransaction, _ model: inout [String: Row], _ rng: inout SeededGenerator
    )
        throws
    {
        let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
        let item = Item(name: "n\(Int.random(in: 0..<100, using: &rng))", count: Int.random(in: 0..<1000, using: &rng))
        let info = Bool.random(using: &rng) ? Info(pinned: Bool.random(using: &rng)) : nil
        let typed = Bool.random(using: &rng)
        switch Int.random(in: 0..<6, using: &rng) {
        case 0, 1:
            if typed {
                try tx.set(item, forKey: key, in: items, metadata: info)
            } else {
                try tx.setObject(item, forKey: key, inCollection: items.name, withMetadata: info)
            }
            model[key] = Row(item: item, info: info)
        case 2:
            if typed {
                try tx.replace(item, forKey: key, in: items)
            } else {
                try tx.replaceObject(item, forKey: key, inCollection: items.name)
            }
            model[key]?.item = item
        case 3:
            if typed {
                try tx.replaceMetadata(info, forKey: key, in: items)
            } else {
                try tx.replaceMetadata(info, forKey: key, inCollection: items.name)
            }
            model[key]?.info = info
        case 4:
            if typed {
                try tx.removeObject(forKey: key, in: items)
            } else {
                try tx.removeObject(forKey: key, inCollection: items.name)
            }
            model[key] = nil
        default:
            try tx.touchRow(forKey: key, in: items)
        }
    }

    private static func check(_ tx: ReadTransaction, _ model: [String: Row], _ context: String) throws {
        #expect(try tx.numberOfKeys(in: items) == model.count, "\(context)")
        for key in keys {
            let row = model[key]
            #expect(try tx.object(forKey: key, in: items) == row?.item, "\(context), \(key)")
            #expect(try tx.metadata(forKey: key, in: items) == row?.info, "\(context), \(key)")
            #expect(
                try tx.object(forKey: key, inCollection: items.name, as: Item.self) == row?.item, "\(context), \(key)")
            #expect(
                try tx.metadata(forKey: key, inCollection: items.name, as: Info.self) == row?.info,
                "\(context), \(key)")
        }
        var enumerated: [String: Row] = [:]
        try tx.enumerateRows(in: items) { key, item, info, _ in enumerated[key] = Row(item: item, info: info) }
        #expect(enumerated == model, "\(context), enumeration")
        let listed = try tx.objects(forKeys: keys, in: items)
        #expect(listed == keys.map { model[$0]?.item }, "\(context), key list")
    }
}
