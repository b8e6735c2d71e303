import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `setObject(_: Data, …)` against the general `setObject` given the same `Data` as `any Sendable`:
/// two databases set up alike take the same random writes, one through each, and must end up
/// alike after every transaction — rows byte for byte, reads through caches on both connections,
/// changesets, hooks, sanitizers.
@Suite struct DataObjectWriteTests {
    /// One way of setting up the collections, applied to both databases.
    struct Setup: Sendable, CustomStringConvertible {
        let description: String
        let apply: @Sendable (Database, Locked<[String]>) throws -> Void
    }

    static let setups: [Setup] = [
        Setup(description: "identity") { db, _ in db.registerData(forCollection: "blobs") },
        Setup(description: "identity+zlib") { db, _ in db.registerData(forCollection: "blobs", stages: [.zlib()]) },
        Setup(description: "default chain") { _, _ in },
        Setup(description: "pre-sanitizer") { db, _ in
            db.registerData(forCollection: "blobs")
            db.registerObjectPreSanitizer(
                { _, _, object in
                    guard let data = object as? Data, data.first != 0 else { return nil }
                    return data + Data([0xEE])
                }, forCollection: "blobs")
        },
        Setup(description: "post-sanitizer") { db, log in
            db.registerData(forCollection: "blobs")
            db.registerObjectPostSanitizer(
                { collection, key, object in log.append("post \(collection)/\(key) \(Self.show(object))") },
                forCollection: "blobs")
        },
        Setup(description: "copy policy") { db, _ in
            db.registerData(forCollection: "blobs")
            db.setObjectPolicy(.copy, forCollection: "blobs")
        },
        Setup(description: "share metadata policy") { db, _ in
            db.registerData(forCollection: "blobs")
            db.setMetadataPolicy(.share, forCollection: "blobs")
        },
        Setup(description: "hooks") { db, log in
            db.registerData(forCollection: "blobs")
            var hooks = Hooks()
            hooks.willModifyRow = { _, collection, key, object, _, flags in
                log.append("will \(collection)/\(key) \(flags.rawValue) \(Self.show(try object.value(as: Data.self)))")
            }
            hooks.didModifyRow = { _, collection, key, object, metadata, flags in
                let extra = try metadata.value(as: String.self) ?? "-"
                log.append(
                    "did \(collection)/\(key) \(flags.rawValue) \(Self.show(try object.value(as: Data.self))) \(extra)")
            }
            try db.register(hooks, withName: "log")
        },
    ]

    @Test(arguments: setups, [true, false])
    func dataWritesMatchTheGeneralWrite(setup: Setup, cached: Bool) throws {
        let config = ConnectionConfig(objectCacheEnabled: cached, metadataCacheEnabled: cached)
        let fast = try Side(setup, config)
        let general = try Side(setup, config)
        var random = SeededGenerator(seed: 29)
        let keys = (0..<6).map { "k\($0)" }
        for round in 0..<40 {
            var writes: [(collection: String?, key: String, data: Data, metadata: String?)] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let collection: String? = ["blobs", "blobs", "other", nil].randomElement(using: &random)!
                let bytes = (0..<Int.random(in: 0...20, using: &random)).map { _ in
                    UInt8.random(in: 0...3, using: &random)
                }
                let metadata = Int.random(in: 0..<4, using: &random) == 0 ? "m\(round)" : nil
                writes.append((collection, keys.randomElement(using: &random)!, Data(bytes), metadata))
            }
            let remove = Int.random(in: 0..<5, using: &random) == 0 ? keys.randomElement(using: &random) : nil
            try fast.writer.readWrite { tx in
                for write in writes {
                    // `Data` without metadata takes the overload; with it, the general write.
                    if write.metadata == nil {
                        try tx.setObject(write.data, forKey: write.key, inCollection: write.collection)
                    } else {
                        try tx.setObject(
                            write.data, forKey: write.key, inCollection: write.collection, withMetadata: write.metadata)
                    }
                }
                if let remove { try tx.removeObject(forKey: remove, inCollection: "blobs") }
            }
            try general.writer.readWrite { tx in
                for write in writes {
                    try tx.setObject(
                        write.data as any Sendable, forKey: write.key, inCollection: write.collection,
                        withMetadata: write.metadata)
                }
                if let remove { try tx.removeObject(forKey: remove, inCollection: "blobs") }
            }
            let snapshot = try fast.writer.read { tx in tx.snapshot }
            let fastChanges = try #require(fast.recorder.changeset(snapshot: snapshot))
            let generalChanges = try #require(general.recorder.changeset(snapshot: snapshot))
            #expect(fastChanges.objectChanges == generalChanges.objectChanges, "round \(round)")
            #expect(fastChanges.metadataChanges == generalChanges.metadataChanges, "round \(round)")
            #expect(fastChanges.insertedKeys == generalChanges.insertedKeys, "round \(round)")
            #expect(fastChanges.removedKeys == generalChanges.removedKeys, "round \(round)")
            for connection in [\Side.writer, \Side.reader] {
                #expect(
                    try fast[keyPath: connection].rows(keys) == general[keyPath: connection].rows(keys),
                    "round \(round)")
            }
        }
        #expect(fast.log.value == general.log.value)
    }

    /// A `Data` handle's typed write takes the same path and stores the same row.
    @Test func typedDataHandleWritesTheBytesAsTheyAre() throws {
        let test = try TestDatabase()
        let blobs = TypedCollection<Data, String>("blobs")
        test.database.registerData(forCollection: "blobs")
        let connection = try test.connection()
        try connection.readWrite { tx in
            try tx.set(Data([1, 2, 3]), forKey: "a", in: blobs)
            try tx.set(Data([4]), forKey: "b", in: blobs, metadata: "note")
        }
        try connection.read { tx in
            #expect(try tx.object(forKey: "a", in: blobs) == Data([1, 2, 3]))
            #expect(try tx.metadata(forKey: "a", in: blobs) == nil)
            #expect(try tx.object(forKey: "b", in: blobs) == Data([4]))
            #expect(try tx.metadata(forKey: "b", in: blobs) == "note")
            var stored: Data?
            _ = try tx.withSerializedObject(forKey: "a", inCollection: "blobs") {
                stored = Data($0.withUnsafeBytes { Array($0) })
            }
            #expect(stored == Data([1, 2, 3]))
        }
    }

    /// A `Data` write in a rolled-back or ended transaction fails as the general write does.
    @Test func dataWriteOutsideAWritableTransactionIsMisuse() throws {
        let test = try TestDatabase()
        test.database.registerData(forCollection: "blobs")
        let connection = try test.connection()
        var escaped: ReadWriteTransaction?
        try connection.readWrite { tx in
            tx.rollback()
            #expect(throws: DatabaseError.self) { try tx.setObject(Data([1]), forKey: "a", inCollection: "blobs") }
            escaped = tx
        }
        #expect(throws: DatabaseError.self) { try escaped?.setObject(Data([1]), forKey: "a", inCollection: "blobs") }
        let stored = try connection.read { tx in try tx.object(forKey: "a", inCollection: "blobs", as: Data.self) }
        #expect(stored == nil)
    }

    static func show(_ value: (any Sendable)?) -> String {
        guard let value else { return "nil" }
        if let data = value as? Data { return data.map(String.init).joined(separator: ",") }
        return "\(value)"
    }

    /// One database of a comparison, with its writer, a second connection reading, and what
    /// its hooks and sanitizers saw.
    final class Side {
        let test: TestDatabase
        let writer: Connection
        let reader: Connection
        let recorder: NotificationRecorder
        let log = Locked<[String]>([])

        init(_ setup: Setup, _ config: ConnectionConfig) throws {
            test = try TestDatabase()
            try setup.apply(test.database, log)
            writer = try test.connection(config: config)
            reader = try test.connection(config: config)
            recorder = NotificationRecorder(test.database)
        }
    }
}

extension Connection {
    /// Every key's object, metadata and stored bytes in the three collections the test writes,
    /// read through this connection (and its caches).
    fileprivate func rows(_ keys: [String]) throws -> [String] {
        try read { tx in
            var rows: [String] = []
            for collection in ["blobs", "other", ""] {
                for key in keys {
                    let object = try tx.object(forKey: key, inCollection: collection)
                    let metadata = try tx.metadata(forKey: key, inCollection: collection)
                    var stored = "-"
                    _ = try tx.withSerializedObject(forKey: key, inCollection: collection) { bytes in
                        stored = bytes.withUnsafeBytes { $0.map(String.init).joined(separator: ",") }
                    }
                    rows.append(
                        "\(collection)/\(key) \(DataObjectWriteTests.show(object)) \(DataObjectWriteTests.show(metadata)) \(stored)"
                    )
                }
            }
            return rows
        }
    }
}
