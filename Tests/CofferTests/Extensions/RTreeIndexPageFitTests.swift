import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// Whether an R*Tree node fits a database page, which ``RTreeIndex``'s documentation advises on.
    ///
    /// SQLite 3.15.2 sizes a node when the table is created: the page size less 64 bytes, at most
    /// 51 entries (`getNodeSize` in ext/rtree/rtree.c). SQLCipher 3.4.1 reserves 48 bytes of every
    /// page (IV and HMAC) and SQLite keeps at most usable − 35 bytes of a row in its b-tree leaf,
    /// so at 1,024-byte pages a 960-byte node (964 bytes as a row) exceeds the 941 a leaf can keep
    /// and its end goes to an overflow page.
    @Suite struct RTreeIndexPageFitTests {
        static let boxCount = 3_000

        /// What one build of the index cost and what reading its nodes back cost.
        struct Measurement {
            /// Rows of the node table.
            var nodes: Int
            /// The size of one node, as R*Tree chose it.
            var nodeBytes: Int
            /// How much `PRAGMA page_count` grew when the index was built (its three shadow tables).
            var pagesGrown: Int
            /// Pages read, with a cold cache, to read every node's blob after the node table's
            /// b-tree pages were read: the overflow pages.
            var overflowReads: Int
            /// Pages read, with a cold cache, to read every node's number: the node table's b-tree pages.
            var treeReads = 0

            var pagesPerNode: Double { Double(pagesGrown) / Double(nodes) }
        }

        /// Builds a 2-D index of `boxCount` small boxes at `pageSize`, then reads the node table
        /// through the counting VFS on a connection of its own.
        private func measure(pageSize: Int, hmac: Bool = true) throws -> Measurement {
            try FaultInjectingVFS.register()
            let directory = TemporaryDirectory()
            let controller = FaultController(directory: directory.url.path)
            let url = directory.file("db.sqlite")
            let key = TestSupport.randomKey()
            var options = TestSupport.rawKeyOptions(key)
            options.cipher.pageSize = pageSize
            options.cipher.useHMAC = hmac
            var measurement = Measurement(nodes: 0, nodeBytes: 0, pagesGrown: 0, overflowReads: 0)
            do {
                let database = try Database(url: url, options: options)
                database.registerCodable(BruteForceBox.self, forCollection: "boxes")
                let connection = try database.newConnection()
                var rng = SeededGenerator(seed: 1024)
                try connection.readWrite { tx throws in
                    for index in 0..<Self.boxCount {
                        let (x, y) = (
                            Double.random(in: 0..<100_000, using: &rng), Double.random(in: 0..<100_000, using: &rng)
                        )
                        try tx.setObject(
                            BruteForceBox(minX: x, maxX: x + 5, minY: y, maxY: y + 5), forKey: "\(index)",
                            inCollection: "boxes")
                    }
                }
                // Registered after the rows, so that the growth is the index's alone.
                let pageCount = {
                    try connection.read { tx throws in try tx.core.sqlite.scalarInt("PRAGMA page_count") }
                }
                let before = try pageCount() ?? 0
                try database.register(
                    RTreeIndex(
                        setup: RTreeIndexSetup(columns: ["minX", "maxX", "minY", "maxY"]),
                        handler: .object(BruteForceBox.self) { row, box in
                            box = [
                                "minX": row.object.minX, "maxX": row.object.maxX, "minY": row.object.minY,
                                "maxY": row.object.maxY,
                            ]
                        }), withName: "fit")
                measurement.pagesGrown = Int((try pageCount() ?? 0) - before)
                try connection.read { tx throws in
                    let nodeTable = "\"rTreeIndex_fit_node\""
                    measurement.nodes = Int(try tx.core.sqlite.scalarInt("SELECT COUNT(*) FROM \(nodeTable)") ?? 0)
                    measurement.nodeBytes = Int(
                        try tx.core.sqlite.scalarInt("SELECT length(data) FROM \(nodeTable) WHERE nodeno = 1") ?? 0)
                }
            }
            try TestSupport.waitUntilClosed(url)
            let raw = try SQLiteConnection(path: url.path, create: false, vfs: FaultInjectingVFS.name)
            defer { raw.close() }
            let hex = key.map { String(format: "%02x", $0) }.joined()
            try Array("x'\(hex)'".utf8).withUnsafeBytes { try raw.applyKey($0) }
            try raw.applyCipherSettings(pageSize: pageSize, kdfIterations: nil, useHMAC: hmac)
            // One read transaction, so that the page cache stays valid from one count to the next.
            try raw.execute("BEGIN")
            _ = try raw.scalarInt("SELECT COUNT(*) FROM sqlite_master")
            // The keys alone: the node table's b-tree pages, never a row's overflow.
            controller.resetCounts()
            _ = try raw.scalarInt("SELECT sum(nodeno) FROM \"rTreeIndex_fit_node\"")
            measurement.treeReads = controller.calls(.read)
            controller.resetCounts()
            _ = try raw.scalarInt("SELECT sum(length(hex(data))) FROM \"rTreeIndex_fit_node\"")
            measurement.overflowReads = controller.calls(.read)
            try raw.execute("COMMIT")
            return measurement
        }

        @Test func aNodeOverflowsItsPageAt1024BytesAndFitsAt4096() throws {
            let small = try measure(pageSize: 1024)
            let large = try measure(pageSize: 4096)
            // 1024 − 64, and 4 + 51 × (8 + 4 × 4) for two dimensions.
            #expect(small.nodeBytes == 960)
            #expect(large.nodeBytes == 1228)
            // Every node read at 1,024-byte pages takes an overflow page besides its leaf page.
            #expect(small.overflowReads >= small.nodes, "\(small)")
            #expect(large.overflowReads == 0, "\(large)")
            // Reading every node reads more than a page per node at 1,024 bytes (each node's
            // overflow page, and its share of a leaf), where three nodes share a page at 4,096.
            #expect(Double(small.treeReads + small.overflowReads) > Double(small.nodes), "\(small)")
            #expect(Double(large.treeReads + large.overflowReads) < 0.5 * Double(large.nodes), "\(large)")
            // The whole index (node, rowid and parent tables) takes several times the pages per node.
            #expect(small.pagesPerNode > 2 * large.pagesPerNode, "\(small) \(large)")
        }

        /// Without per-page HMAC SQLCipher reserves only the 16-byte IV, and a 1,024-byte page
        /// holds its node: the overflow comes from the HMAC's reserve.
        @Test func withoutHMACANodeFits1024BytePages() throws {
            let measurement = try measure(pageSize: 1024, hmac: false)
            #expect(measurement.nodeBytes == 960)
            #expect(measurement.overflowReads == 0, "\(measurement)")
        }
    }
}
