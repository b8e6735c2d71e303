import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A 2-D box for R*Tree tests, as YapDatabase's RTreeIndex tests use; `mode` makes the test
/// handler derive nothing or misbehave on purpose.
struct Region: Codable, Sendable, Equatable {
    var minX: Double
    var maxX: Double
    var minY: Double
    var maxY: Double
    /// `box` (index it), `none` (no entry), or one of the failures of ``fill(_:)``.
    var mode = "box"

    init(_ minX: Double, _ maxX: Double, _ minY: Double, _ maxY: Double, mode: String = "box") {
        (self.minX, self.maxX, self.minY, self.maxY, self.mode) = (minX, maxX, minY, maxY, mode)
    }

    /// What a well-behaved handler stores, or what `mode` asks to get wrong.
    func fill(_ box: inout [String: Double]) {
        guard mode != "none" else { return }
        box["minX"] = minX
        box["maxX"] = maxX
        box["minY"] = minY
        box["maxY"] = maxY
        switch mode {
        case "partial":
            box["minY"] = nil
            box["maxY"] = nil
        case "nan": box["minX"] = .nan
        case "infinite": box["maxY"] = .infinity
        case "inverted": box["minX"] = maxX + 1
        case "unknown": box["minZ"] = 0
        default: break
        }
    }
}

extension Extensions {
    /// RTreeIndex: population, containment and overlap queries, every kind of write, the handler
    /// kinds, 1 to 5 dimensions, integer coordinates, validation, version tags, persistence and
    /// unregistering (YapDatabase's RTreeIndex semantics on SQLite's R*Tree).
    @Suite struct RTreeIndexTests {
        static let columns = ["minX", "maxX", "minY", "maxY"]
        static let containment = "WHERE minX >= ? AND maxX <= ? AND minY >= ? AND maxY <= ?"
        static let overlap = "WHERE maxX >= ? AND minX <= ? AND maxY >= ? AND minY <= ?"

        /// An index of the regions' boxes; `calls` counts handler runs.
        static func regionIndex(
            versionTag: String = "1", allowed: AllowList<String> = .only(["regions"]),
            coordinateType: RTreeIndexSetup.CoordinateType = .float32, calls: Locked<Int>? = nil
        ) -> RTreeIndex {
            RTreeIndex(
                setup: RTreeIndexSetup(columns: columns, coordinateType: coordinateType),
                handler: .object(Region.self) { row, box in
                    calls?.withLock { $0 += 1 }
                    row.object.fill(&box)
                }, versionTag: versionTag, allowedCollections: allowed)
        }

        static func registerRegionCodecs(_ database: Database) {
            database.registerCodable(Region.self, metadata: Badge.self, forCollection: "regions")
            database.registerCodable(Region.self, metadata: Badge.self, forCollection: "parks")
        }

        /// The keys (sorted) of the boxes `format` matches, through the index called `name`.
        static func boxKeys(
            _ tx: ReadTransaction, in name: String = "boxes", _ format: String,
            _ arguments: any DatabaseQueryArgument...
        ) throws -> [String] {
            let index = try #require(tx.rtreeIndex(name))
            return try index.keys(matching: DatabaseQuery(format: format, arguments: arguments)).map(\.key).sorted()
        }

        /// Names in the schema starting with `prefix` (the R*Tree table and its shadow tables).
        static func schemaNames(_ tx: ReadTransaction, prefix: String) throws -> [String] {
            let stmt = try tx.core.sqlite.prepare(
                "SELECT name FROM sqlite_master WHERE substr(name, 1, \(prefix.utf8.count)) = '\(prefix)' ORDER BY name"
            )
            var names: [String] = []
            while try stmt.step() { names.append(stmt.text(0)) }
            return names
        }

        private func setUp() throws -> (TestDatabase, Connection) {
            let test = try TestDatabase()
            Self.registerRegionCodecs(test.database)
            return (test, try test.connection())
        }

        /// Four boxes and a point in "regions", and a box in "parks" (not indexed by default).
        private func seed(_ connection: Connection) throws {
            try connection.readWrite { tx throws in
                try tx.setObject(
                    Region(0, 10, 0, 10), forKey: "a", inCollection: "regions", withMetadata: Badge(level: 1))
                try tx.setObject(Region(5, 15, 5, 15), forKey: "b", inCollection: "regions")
                try tx.setObject(Region(20, 30, 20, 30), forKey: "c", inCollection: "regions")
                try tx.setObject(
                    Region(2, 2, 3, 3), forKey: "d", inCollection: "regions", withMetadata: Badge(level: 4))
                try tx.setObject(Region(-10, -5, -10, -5), forKey: "e", inCollection: "regions")
                try tx.setObject(Region(0, 10, 0, 10), forKey: "p", inCollection: "parks")
            }
        }

        @Test func registrationPopulatesAndBoxQueriesWork() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            for reader in [connection, try test.connection()] {
                try reader.read { tx throws in
                    #expect(try Self.boxKeys(tx, Self.containment, 0.0, 10.0, 0.0, 10.0) == ["a", "d"])
                    #expect(try Self.boxKeys(tx, Self.overlap, 8.0, 12.0, 8.0, 12.0) == ["a", "b"])
                    #expect(try Self.boxKeys(tx, Self.overlap, 2.0, 2.0, 3.0, 3.0) == ["a", "d"])
                    // YapDatabase's form, strict on both sides.
                    #expect(try Self.boxKeys(tx, "WHERE minX > ? AND maxX < ?", 0.0, 16.0) == ["b", "d"])
                    #expect(try Self.boxKeys(tx, "WHERE maxX < ?", 0) == ["e"])
                    #expect(try Self.boxKeys(tx, Self.containment, 100.0, 200.0, 100.0, 200.0).isEmpty)
                    let index = try #require(tx.rtreeIndex("boxes"))
                    #expect(index.registeredName == "boxes")
                    #expect(index.versionTag == "1")
                    #expect(try index.count(matching: .matchingAll) == 5)
                    #expect(try index.count(matching: DatabaseQuery(format: Self.overlap, 8.0, 12.0, 8.0, 12.0)) == 2)
                    let ordered = try index.keys(matching: DatabaseQuery(format: "ORDER BY minX DESC LIMIT 2"))
                    #expect(ordered.map(\.key) == ["c", "b"])
                    #expect(ordered.allSatisfy { $0.collection == "regions" })
                    // rowids of indexed keys only: the missing key and the park have none.
                    let rowids = try index.rowids(forKeys: ["a", "c", "zz"], inCollection: "regions")
                    #expect(Set(rowids.keys) == ["a", "c"])
                    #expect(try index.rowids(forKeys: ["p"], inCollection: "parks").isEmpty)
                    let a = try #require(rowids["a"])
                    #expect(try tx.rowid(for: CollectionKey(collection: "regions", key: "a")) == a)
                    #expect(try Self.boxKeys(tx, "WHERE rowid = ?", a) == ["a"])
                    #expect(try Self.boxKeys(tx, "WHERE rowid IN (?) AND minX >= ?", Array(rowids.values), 1) == ["c"])
                }
            }
        }

        @Test func enumerationsReturnObjectsMetadataAndRows() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            try connection.read { tx throws in
                let index = try #require(tx.rtreeIndex("boxes"))
                let query = try DatabaseQuery(format: Self.containment + " ORDER BY maxX", 0.0, 20.0, 0.0, 20.0)
                var keys: [String] = []
                try index.enumerateKeys(matching: query) { collection, key, _ in
                    #expect(collection == "regions")
                    keys.append(key)
                }
                #expect(keys == ["d", "a", "b"])
                var objects: [String: Region] = [:]
                try index.enumerateKeysAndObjects(matching: query) { _, key, object, _ in
                    objects[key] = object as? Region
                }
                #expect(objects == ["a": Region(0, 10, 0, 10), "b": Region(5, 15, 5, 15), "d": Region(2, 2, 3, 3)])
                var badges: [String: Badge?] = [:]
                try index.enumerateKeysAndMetadata(matching: query) { _, key, metadata, _ in
                    badges[key] = metadata as? Badge
                }
                #expect(badges == ["a": Badge(level: 1), "b": nil, "d": Badge(level: 4)])
                var rows: [String] = []
                try index.enumerateRows(matching: query) { _, key, object, metadata, stop in
                    rows.append("\(key):\((object as? Region)?.maxX ?? -1):\((metadata as? Badge)?.level ?? 0)")
                    stop = rows.count == 2
                }
                #expect(rows == ["d:2.0:4", "a:10.0:1"])
                #expect(try index.keys(matching: query).map(\.key) == ["d", "a", "b"])
            }
        }

        @Test func everyKindOfWriteKeepsTheIndexExact() throws {
            let (test, connection) = try setUp()
            let reader = try test.connection()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            let all = { (c: Connection) in try c.read { tx in try Self.boxKeys(tx, "") } }

            // Insert, and update moving a box, seen inside the write and by a sibling.
            try connection.readWrite { tx throws in
                try tx.setObject(Region(100, 110, 100, 110), forKey: "f", inCollection: "regions")
                try tx.setObject(Region(50, 60, 50, 60), forKey: "a", inCollection: "regions")
                #expect(try Self.boxKeys(tx, Self.overlap, 45.0, 105.0, 45.0, 105.0) == ["a", "f"])
                #expect(try Self.boxKeys(tx, Self.containment, 0.0, 10.0, 0.0, 10.0) == ["d"])
            }
            try reader.read { tx throws in
                #expect(try Self.boxKeys(tx, Self.overlap, 45.0, 105.0, 45.0, 105.0) == ["a", "f"])
                #expect(try Self.boxKeys(tx, Self.containment, 0.0, 10.0, 0.0, 10.0) == ["d"])
                let rowid = try #require(try tx.rowid(for: CollectionKey(collection: "regions", key: "a")))
                #expect(try indexTable(tx, "rTreeIndex_boxes")[rowid] == [.real(50), .real(60), .real(50), .real(60)])
            }

            // Replace the object: a box that yields no entry removes it; a valid one brings it back.
            try connection.readWrite { tx throws in
                try tx.replaceObject(Region(20, 30, 20, 30, mode: "none"), forKey: "c", inCollection: "regions")
            }
            #expect(try all(reader) == ["a", "b", "d", "e", "f"])
            try connection.readWrite { tx throws in
                try tx.replaceObject(Region(-30, -20, 20, 30), forKey: "c", inCollection: "regions")
            }
            #expect(try reader.read { tx in try Self.boxKeys(tx, "WHERE maxX <= ?", -5) } == ["c", "e"])

            // Remove one, remove several (one missing), remove a collection, remove everything.
            try connection.readWrite { tx in try tx.removeObject(forKey: "f", inCollection: "regions") }
            #expect(try all(reader) == ["a", "b", "c", "d", "e"])
            try connection.readWrite { tx throws in
                try tx.removeObjects(forKeys: ["b", "nobody", "d"], inCollection: "regions")
            }
            #expect(try all(reader) == ["a", "c", "e"])
            try connection.readWrite { tx throws in
                try tx.removeAllObjects(inCollection: "parks")
                #expect(try Self.boxKeys(tx, "") == ["a", "c", "e"])  // another collection leaves the index alone
                try tx.removeAllObjects(inCollection: "regions")
                #expect(try Self.boxKeys(tx, "").isEmpty)
            }
            #expect(try all(reader).isEmpty)
            try connection.readWrite { tx throws in
                try tx.setObject(Region(1, 2, 1, 2), forKey: "g", inCollection: "regions")
                try tx.setObject(Region(3, 4, 3, 4), forKey: "h", inCollection: "regions")
            }
            #expect(try all(reader) == ["g", "h"])
            try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            try reader.read { tx throws in
                #expect(try Self.boxKeys(tx, "").isEmpty)
                #expect(try indexTable(tx, "rTreeIndex_boxes").isEmpty)
                #expect(try tx.core.sqlite.scalarInt("SELECT COUNT(*) FROM \"rTreeIndex_boxes_rowid\"") == 0)
            }
        }

        @Test func rollbackLeavesTheIndexUnchanged() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            try connection.readWrite { tx throws in
                try tx.setObject(Region(40, 41, 40, 41), forKey: "x", inCollection: "regions")
                try tx.setObject(Region(40, 41, 40, 41), forKey: "a", inCollection: "regions")
                try tx.removeObject(forKey: "b", inCollection: "regions")
                #expect(try Self.boxKeys(tx, Self.containment, 39.0, 42.0, 39.0, 42.0) == ["a", "x"])
                tx.rollback()
            }
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, Self.containment, 39.0, 42.0, 39.0, 42.0).isEmpty)
                #expect(try Self.boxKeys(tx, Self.containment, 0.0, 20.0, 0.0, 20.0) == ["a", "b", "d"])
            }
        }

        @Test func handlersRunOnlyWhenTheirInputChanges() throws {
            let (test, connection) = try setUp()
            let counters = (0..<4).map { _ in Locked(0) }
            let setup = RTreeIndexSetup(columns: Self.columns)
            let byObject = RTreeIndex(
                setup: setup,
                handler: .object(Region.self) { row, box in
                    counters[0].withLock { $0 += 1 }
                    row.object.fill(&box)
                })
            let byMetadata = RTreeIndex(
                setup: setup,
                handler: .metadata(Badge.self) { row, box in
                    counters[1].withLock { $0 += 1 }
                    let level = Double(row.metadata.level)
                    box = ["minX": level, "maxX": level, "minY": 0, "maxY": 0]
                })
            let byRow = RTreeIndex(
                setup: setup,
                handler: .row(Region.self, Badge.self) { row, box in
                    counters[2].withLock { $0 += 1 }
                    row.object.fill(&box)
                    box["maxY"] = row.object.maxY + Double(row.metadata?.level ?? 0)
                })
            let byKey = RTreeIndex(
                setup: setup,
                handler: .key { row, box in
                    counters[3].withLock { $0 += 1 }
                    let length = Double(row.key.count)
                    box = ["minX": length, "maxX": length, "minY": length, "maxY": length]
                }, allowedCollections: .all)
            let calls = { counters.map(\.value) }
            for (name, index) in [("objects", byObject), ("metadata", byMetadata), ("rows", byRow), ("keys", byKey)] {
                try test.database.register(index, withName: name)
            }
            try connection.readWrite { tx throws in
                try tx.setObject(
                    Region(0, 1, 0, 1), forKey: "k", inCollection: "regions", withMetadata: Badge(level: 1))
            }
            #expect(calls() == [1, 1, 1, 1])
            try connection.readWrite { tx in
                try tx.replaceMetadata(Badge(level: 2), forKey: "k", inCollection: "regions")
            }
            #expect(calls() == [1, 2, 2, 1])
            try connection.readWrite { tx throws in
                try tx.replaceObject(Region(5, 6, 5, 6), forKey: "k", inCollection: "regions")
            }
            #expect(calls() == [2, 2, 3, 1])
            try connection.readWrite { tx in try tx.touchObject(forKey: "k", inCollection: "regions") }
            #expect(calls() == [3, 2, 4, 1])
            try connection.readWrite { tx in try tx.touchMetadata(forKey: "k", inCollection: "regions") }
            #expect(calls() == [3, 3, 5, 1])
            try connection.readWrite { tx in try tx.touchRow(forKey: "k", inCollection: "regions") }
            #expect(calls() == [4, 4, 6, 1])
            try connection.readWrite { tx throws in
                try tx.setObject(
                    Region(7, 8, 7, 8), forKey: "k", inCollection: "regions", withMetadata: Badge(level: 9))
            }
            #expect(calls() == [5, 5, 7, 1])
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, in: "objects", "WHERE minX = ? AND maxY = ?", 7, 8) == ["k"])
                #expect(try Self.boxKeys(tx, in: "metadata", "WHERE minX = ?", 9) == ["k"])
                #expect(try Self.boxKeys(tx, in: "rows", "WHERE maxY = ?", 17) == ["k"])
                #expect(try Self.boxKeys(tx, in: "keys", "WHERE minX = ?", 1) == ["k"])
            }
            // Metadata of another type reads as none: the typed metadata handler gives no entry.
            try connection.readWrite { tx in try tx.replaceMetadata(nil, forKey: "k", inCollection: "regions") }
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, in: "metadata", "").isEmpty)
                #expect(try Self.boxKeys(tx, in: "rows", "WHERE maxY = ?", 8) == ["k"])
            }
        }

        @Test(arguments: [1, 3, 5])
        func dimensions(_ count: Int) throws {
            let columns = (0..<count).flatMap { ["min\($0)", "max\($0)"] }
            let test = try TestDatabase()
            test.database.registerCodable([Double].self, forCollection: "points")
            try test.database.register(
                RTreeIndex(
                    setup: RTreeIndexSetup(columns: columns),
                    handler: .object([Double].self) { row, box in
                        for (dimension, value) in row.object.enumerated() {
                            box["min\(dimension)"] = value
                            box["max\(dimension)"] = value + 1
                        }
                    }), withName: "space")
            var rng = SeededGenerator(seed: UInt64(count))
            let points = (0..<200).map { _ in (0..<count).map { _ in Double(Int.random(in: 0..<10, using: &rng)) } }
            try test.connection().readWrite { tx throws in
                for (index, point) in points.enumerated() {
                    try tx.setObject(point, forKey: "\(index)", inCollection: "points")
                }
            }
            // Whole numbers are exact floats, so plain comparisons give the answer.
            let inside = (0..<count).map { "min\($0) >= 2 AND max\($0) <= 8" }.joined(separator: " AND ")
            let touching = (0..<count).map { "max\($0) >= 3 AND min\($0) <= 6" }.joined(separator: " AND ")
            let expectedInside = points.indices.filter { points[$0].allSatisfy { $0 >= 2 && $0 + 1 <= 8 } }
            let expectedTouching = points.indices.filter { points[$0].allSatisfy { $0 + 1 >= 3 && $0 <= 6 } }
            try test.connection().read { tx throws in
                let index = try #require(tx.rtreeIndex("space"))
                #expect(
                    try index.keys(matching: DatabaseQuery(format: "WHERE " + inside)).map { Int($0.key) ?? -1 }
                        .sorted() == expectedInside)
                #expect(try index.count(matching: DatabaseQuery(format: "WHERE " + touching)) == expectedTouching.count)
                #expect(!expectedInside.isEmpty && !expectedTouching.isEmpty)
                let sql = try tx.core.sqlite.scalarText("SELECT sql FROM sqlite_master WHERE name = 'rTreeIndex_space'")
                #expect(
                    sql?.contains("USING rtree(\"rowid\", " + columns.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
                        == true)
            }
        }

        @Test func storedFloatsAreRoundedOutward() throws {
            let (test, connection) = try setUp()
            try test.database.register(Self.regionIndex(), withName: "boxes")
            // Neither 0.1 nor 16,777,217 is a float: each minimum is stored below its value and
            // each maximum above it.
            try connection.readWrite { tx throws in
                try tx.setObject(Region(0.1, 0.1, 16_777_217, 16_777_217), forKey: "p", inCollection: "regions")
            }
            try connection.read { tx throws in
                let rowid = try #require(try tx.rowid(for: CollectionKey(collection: "regions", key: "p")))
                let stored = try #require(indexTable(tx, "rTreeIndex_boxes")[rowid]).compactMap(\.doubleValue)
                #expect(
                    stored == [
                        Double(RTreeFloatRounding.down(0.1)), Double(RTreeFloatRounding.up(0.1)),
                        Double(RTreeFloatRounding.down(16_777_217)), Double(RTreeFloatRounding.up(16_777_217)),
                    ])
                #expect(stored[0] < 0.1 && stored[1] > 0.1)
                // Floats are 2 apart here; rtree.c's scaling of the maximum lands one float further up.
                #expect(stored[2] == 16_777_216 && stored[3] == 16_777_220)
                // A box containing the exact point finds it; one starting exactly there does not.
                #expect(try Self.boxKeys(tx, "WHERE minX <= ? AND maxX >= ?", 0.1, 0.1) == ["p"])
                #expect(try Self.boxKeys(tx, "WHERE minX >= ?", 0.1).isEmpty)
                #expect(try Self.boxKeys(tx, "WHERE minY = ?", 16_777_217).isEmpty)
            }
        }

        /// A connection whose first use of the index is a read connects SQLite's R*Tree module in
        /// that read; the module prepares writes to its shadow tables as it connects.
        @Test func aConnectionsFirstUseOfTheIndexCanBeARead() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            let fresh = try test.connection()
            #expect(
                try fresh.read { tx throws in try Self.boxKeys(tx, Self.overlap, 8.0, 12.0, 8.0, 12.0) } == ["a", "b"])
            // A read's own statements still cannot write, to the shadow tables or anywhere else.
            try fresh.read { tx throws in
                let index = try #require(tx.rtreeIndex("boxes"))
                #expect(
                    code { try index.context.tables.run("DELETE FROM \"rTreeIndex_boxes_node\"") } == .extensionFailure)
                #expect(code { try index.context.tables.run("DELETE FROM \"rTreeIndex_boxes\"") } == .extensionFailure)
                #expect(
                    code { try index.context.tables.execute("DELETE FROM \"rTreeIndex_boxes_rowid\"") }
                        == .extensionFailure)
                #expect(try index.count(matching: .matchingAll) == 5)
            }
            #expect(try fresh.read { tx throws in try tx.rtreeIndex("boxes")?.count(matching: .matchingAll) } == 5)
        }

        @Test func int32CoordinatesAreExactWholeNumbers() throws {
            let (test, connection) = try setUp()
            try test.database.register(Self.regionIndex(coordinateType: .int32), withName: "boxes")
            try connection.readWrite { tx throws in
                try tx.setObject(
                    Region(16_777_217, 16_777_217, -2_147_483_648, 2_147_483_647), forKey: "exact",
                    inCollection: "regions")
                // Fractions are truncated toward zero.
                try tx.setObject(Region(-0.5, 2.9, -3.7, -1.2), forKey: "fraction", inCollection: "regions")
            }
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, "WHERE minX = ?", 16_777_217) == ["exact"])
                #expect(try Self.boxKeys(tx, "WHERE minY = ? AND maxY = ?", Int32.min, Int32.max) == ["exact"])
                #expect(try Self.boxKeys(tx, "WHERE minX = 0 AND maxX = 2 AND minY = -3 AND maxY = -1") == ["fraction"])
                let sql = try tx.core.sqlite.scalarText("SELECT sql FROM sqlite_master WHERE name = 'rTreeIndex_boxes'")
                #expect(sql?.contains("USING rtree_i32(") == true)
            }
        }

        /// Values SQLite cannot store as the coordinate type fail the write, rather than turning
        /// into an infinity (floats) or wrapping around (integers).
        @Test(arguments: RTreeIndexSetup.CoordinateType.allCases)
        func coordinatesOutsideTheTypesRangeFailTheWrite(_ type: RTreeIndexSetup.CoordinateType) throws {
            let (test, connection) = try setUp()
            try test.database.register(Self.regionIndex(coordinateType: type), withName: "boxes")
            let (limit, below, above) =
                type == .float32
                ? (Double(Float.greatestFiniteMagnitude), -1e39, 1e39)
                : (2_147_483_647.9, -2_147_483_649, 2_147_483_648)
            for region in [Region(above, above, 0, 1), Region(0, 1, below, 0), Region(0, above, 0, 1)] {
                let error = try #require(throws: DatabaseError.self) {
                    try connection.readWrite { tx throws in
                        try tx.setObject(region, forKey: "far", inCollection: "regions")
                    }
                }
                #expect(error.code == .extensionFailure)
                #expect(error.key == "far")
                #expect(error.message.contains("outside the range of \(type)"), "\(error.message)")
            }
            // The ends themselves are kept.
            try connection.readWrite { tx throws in
                try tx.setObject(Region(-limit, limit, 0, 1), forKey: "wide", inCollection: "regions")
            }
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, "WHERE minX <= ? AND maxX >= ?", -1e9, 1e9) == ["wide"])
                #expect(try Self.boxKeys(tx, "") == ["wide"])
            }
        }

        @Test func invalidSetupsAndNamesFailAndLeaveNoTable() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            let twelve = (0..<6).flatMap { ["min\($0)", "max\($0)"] }
            let setups: [[String]] = [
                [], ["minX"], ["minX", "maxX", "minY"], twelve, ["minX", "minX"], ["minX", "MINX"], ["rowid", "maxX"],
                ["min x", "max x"], ["1min", "1max"], ["minX", "oid"],
            ]
            for columns in setups {
                let index = RTreeIndex(setup: RTreeIndexSetup(columns: columns), handler: .key { _, _ in })
                #expect(code { try test.database.register(index, withName: "bad") } == .extensionFailure, "\(columns)")
            }
            // A handler failing on an existing row fails the registration the same way.
            #expect(
                code {
                    try test.database.register(
                        RTreeIndex(
                            setup: RTreeIndexSetup(columns: Self.columns),
                            handler: .object(Region.self) { row, box in
                                row.object.fill(&box)
                                if row.key == "c" { box["maxX"] = nil }
                            }), withName: "bad")
                } == .extensionFailure)
            #expect(test.database.registeredExtension("bad") == nil)
            for name in ["bad-name", "", "with space"] {
                #expect(code { try test.database.register(Self.regionIndex(), withName: name) } == .extensionFailure)
            }
            try test.database.register(Self.regionIndex(), withName: "boxes")
            #expect(code { try test.database.register(Self.regionIndex(), withName: "boxes") } == .extensionFailure)
            #expect(code { try test.database.register(employeeIndex(), withName: "boxes") } == .extensionFailure)
            #expect(test.database.registeredExtension("boxes") is RTreeIndex)
            try connection.read { tx throws in
                #expect(try Self.schemaNames(tx, prefix: "rTreeIndex_bad").isEmpty)
                #expect(try yapRowCount(tx, "bad") == 0)
                #expect(try Self.boxKeys(tx, "") == ["a", "b", "c", "d", "e"])
            }
        }

        @Test(arguments: ["partial", "nan", "infinite", "inverted", "unknown"])
        func aBadBoxFailsTheWriteNamingTheRowAndRollsBack(_ mode: String) throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            let error = try #require(throws: DatabaseError.self) {
                try connection.readWrite { tx throws in
                    try tx.setObject(Region(1, 2, 1, 2), forKey: "good", inCollection: "regions")
                    try tx.setObject(Region(1, 2, 1, 2, mode: mode), forKey: "bad", inCollection: "regions")
                }
            }
            #expect(error.code == .extensionFailure)
            #expect(error.collection == "regions")
            #expect(error.key == "bad")
            #expect(error.message.contains("R*Tree index \"boxes\""))
            let named = ["partial": "minY", "nan": "minX", "infinite": "maxY", "inverted": "minX", "unknown": "minZ"]
            #expect(error.message.contains(named[mode] ?? "?"), "\(error.message)")
            try connection.read { tx throws in
                #expect(try !tx.hasObject(forKey: "good", inCollection: "regions"))
                #expect(try Self.boxKeys(tx, "") == ["a", "b", "c", "d", "e"])
            }
            // The same row through an update fails as well, and leaves the old box in place.
            #expect(
                code {
                    try connection.readWrite { tx throws in
                        try tx.replaceObject(Region(1, 2, 1, 2, mode: mode), forKey: "a", inCollection: "regions")
                    }
                } == .extensionFailure)
            #expect(
                try connection.read { tx in try Self.boxKeys(tx, Self.containment, 0.0, 10.0, 0.0, 10.0) } == [
                    "a", "d",
                ])
        }

        @Test func queryErrorsAreTyped() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            try connection.read { tx throws in
                let index = try #require(tx.rtreeIndex("boxes"))
                #expect(code { _ = try index.keys(matching: DatabaseQuery(format: "WHERE minZ > 1")) } == .invalidQuery)
                #expect(code { _ = try index.count(matching: .aggregate("SUM(minX)")) } == .invalidQuery)
                #expect(
                    code { try index.enumerateKeys(matching: .aggregate("MAX(maxX)")) { _, _, _ in } } == .invalidQuery)
                #expect(tx.rtreeIndex("nothing") == nil)
                #expect(tx.secondaryIndex("boxes") == nil)
            }
        }

        @Test func aReaderPinnedBeforeTheRegistrationDoesNotSeeTheIndex() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            let reader = try test.connection()
            _ = try reader.beginLongLivedReadTransaction()
            try test.database.register(Self.regionIndex(), withName: "boxes")
            try reader.read { tx throws in
                #expect(tx.rtreeIndex("boxes") == nil)
                let raw = try #require(tx.ext("boxes", as: RTreeIndexTransaction.self))
                #expect(code { _ = try raw.count(matching: .matchingAll) } == .extensionFailure)
            }
            _ = try reader.endLongLivedReadTransaction()
            #expect(try reader.read { tx in try tx.rtreeIndex("boxes")?.count(matching: .matchingAll) } == 5)
        }

        @Test func allowedCollectionsDecideWhichRowsAreIndexed() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            let calls = Locked(0)
            try test.database.register(Self.regionIndex(allowed: .only(["parks"]), calls: calls), withName: "parks")
            try test.database.register(Self.regionIndex(allowed: .all), withName: "everything")
            #expect(calls.value == 1)  // the handler never sees rows of other collections
            try connection.readWrite { tx throws in
                try tx.setObject(Region(3, 4, 3, 4), forKey: "q", inCollection: "parks")
                try tx.setObject(Region(3, 4, 3, 4), forKey: "r", inCollection: "regions")
            }
            #expect(calls.value == 2)
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, in: "parks", Self.containment, 0.0, 10.0, 0.0, 10.0) == ["p", "q"])
                let everything = try #require(tx.rtreeIndex("everything"))
                let found = try everything.keys(matching: DatabaseQuery(format: Self.containment, 0.0, 10.0, 0.0, 10.0))
                #expect(
                    Set(found) == [
                        CollectionKey(collection: "regions", key: "a"), CollectionKey(collection: "regions", key: "d"),
                        CollectionKey(collection: "regions", key: "r"), CollectionKey(collection: "parks", key: "p"),
                        CollectionKey(collection: "parks", key: "q"),
                    ])
            }
            try connection.readWrite { tx in try tx.removeAllObjects(inCollection: "regions") }
            try connection.read { tx throws in
                #expect(try Self.boxKeys(tx, in: "everything", "") == ["p", "q"])
                #expect(try Self.boxKeys(tx, in: "parks", "") == ["p", "q"])
            }
        }

        @Test func reopeningReusesTheIndexAndANewVersionTagRepopulates() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            let calls = Locked(0)
            func open() throws -> Database {
                let database = try TestSupport.open(url, options: options)
                Self.registerRegionCodecs(database)
                return database
            }
            do {
                let database = try open()
                try seed(try database.newConnection())
                try database.register(Self.regionIndex(calls: calls), withName: "boxes")
                #expect(calls.value == 5)
                try database.newConnection().readWrite { tx throws in
                    try tx.setObject(Region(7, 8, 7, 8), forKey: "f", inCollection: "regions")
                }
                #expect(calls.value == 6)
            }
            calls.withLock { $0 = 0 }
            do {
                let database = try open()
                #expect(database.previouslyRegisteredExtensionNames == ["boxes"])
                try database.register(Self.regionIndex(calls: calls), withName: "boxes")
                #expect(calls.value == 0)
                #expect(
                    try database.newConnection().read { tx throws in
                        try Self.boxKeys(tx, Self.containment, 0.0, 10.0, 0.0, 10.0)
                    } == ["a", "d", "f"])
            }
            calls.withLock { $0 = 0 }
            do {
                let database = try open()
                try database.register(Self.regionIndex(versionTag: "2", calls: calls), withName: "boxes")
                #expect(calls.value == 6)
                try database.newConnection().read { tx throws in
                    #expect(tx.rtreeIndex("boxes")?.versionTag == "2")
                    #expect(try tx.yapString(extension: "boxes", key: "versionTag") == "2")
                    #expect(try Self.boxKeys(tx, Self.containment, 0.0, 10.0, 0.0, 10.0) == ["a", "d", "f"])
                }
            }
        }

        @Test func aChangedSetupUnderTheSameTagIsRebuilt() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            let renamed = RTreeIndex(
                setup: RTreeIndexSetup(columns: ["x0", "x1", "y0", "y1"]),
                handler: .object(Region.self) { row, box in
                    box = ["x0": row.object.minX, "x1": row.object.maxX, "y0": row.object.minY, "y1": row.object.maxY]
                }, versionTag: "1", allowedCollections: .only(["regions"]))
            var previous = Self.regionIndex()
            for next in [Self.regionIndex(coordinateType: .int32), renamed] {
                do {
                    let database = try TestSupport.open(url, options: options)
                    Self.registerRegionCodecs(database)
                    try database.register(previous, withName: "boxes")
                    try seed(try database.newConnection())
                }
                let database = try TestSupport.open(url, options: options)
                Self.registerRegionCodecs(database)
                try database.register(next, withName: "boxes")
                let connection = try database.newConnection()
                try connection.readWrite { tx throws in
                    try tx.setObject(Region(1.5, 1.5, 1.5, 1.5), forKey: "n", inCollection: "regions")
                }
                try connection.read { tx throws in
                    let index = try #require(tx.rtreeIndex("boxes"))
                    #expect(try index.count(matching: .matchingAll) == 6)
                    let sql = try tx.core.sqlite.scalarText(
                        "SELECT sql FROM sqlite_master WHERE name = 'rTreeIndex_boxes'")
                    if next.setup.coordinateType == .int32 {
                        #expect(sql?.contains("rtree_i32") == true)
                        #expect(try Self.boxKeys(tx, "WHERE minX = 1 AND maxX = 1") == ["n"])  // truncated
                    } else {
                        #expect(sql?.contains("\"x0\"") == true)
                        #expect(try Self.boxKeys(tx, "WHERE x0 >= ? AND x1 <= ?", 0.0, 10.0) == ["a", "d", "n"])
                        #expect(
                            code { _ = try index.keys(matching: DatabaseQuery(format: "WHERE minX > 0")) }
                                == .invalidQuery)
                    }
                }
                previous = next
            }
        }

        @Test func unregisteringDropsTheTableAndItsShadowTables() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(Self.regionIndex(), withName: "boxes")
            try connection.read { tx throws in
                #expect(
                    try Self.schemaNames(tx, prefix: "rTreeIndex_boxes") == [
                        "rTreeIndex_boxes", "rTreeIndex_boxes_node", "rTreeIndex_boxes_parent",
                        "rTreeIndex_boxes_rowid",
                    ])
                #expect(try yapRowCount(tx, "boxes") > 0)
            }
            try test.database.unregister(extensionNamed: "boxes")
            try connection.read { tx throws in
                #expect(tx.rtreeIndex("boxes") == nil)
                #expect(try Self.schemaNames(tx, prefix: "rTreeIndex_").isEmpty)
                #expect(try yapRowCount(tx, "boxes") == 0)
            }
            try connection.readWrite { tx throws in
                try tx.setObject(Region(1, 2, 1, 2), forKey: "later", inCollection: "regions")
            }
            // Registering again rebuilds from every row.
            try test.database.register(Self.regionIndex(), withName: "boxes")
            #expect(try connection.read { tx in try tx.rtreeIndex("boxes")?.count(matching: .matchingAll) } == 6)
        }
    }
}
