import Coffer
import Foundation

/// A place of Q1t: one unit cell of a square grid, stored as the object of its row.
struct Place: Codable, Sendable {
    /// The cell's column.
    var x: Int
    /// The cell's row.
    var y: Int
}

/// Q1t: bounding-box queries on an RTreeIndex, each returning the keys of 100 of
/// `options.scaleCount` rows (1,000,000 unless `--scale-n` or `--smoke` says otherwise).
///
/// The rows are the cells of a square grid, inserted in a shuffled order in one transaction (the
/// setup, untimed), each indexed by the box `[x + 0.25, x + 0.75] × [y + 0.25, y + 0.75]`. Each
/// query is a containment query for a 10 × 10 window of cells at a position drawn with SplitMix64,
/// so it finds exactly 100 rows (fewer only when the grid is too small to hold the window). A new
/// connection with its caches off answers one query untimed, then every timed query in a read
/// transaction of its own: `tx.rtreeIndex(_:)` and `keys(matching:)`, the query value made
/// beforehand. The figure is the median of `queryRepetitions`.
extension CofferExtensionSuite {
    /// The workload id.
    static let queryID = "Q1t"
    /// How many timed queries Q1t runs.
    static let queryRepetitions = 101
    /// The side of the query window, in cells.
    static let windowSide = 10
    /// The collection of the places.
    static let placeCollection = "places"
    /// What Q1t does, for the report.
    static let queryNote =
        "grid-cells-inserted-shuffled,box=[x+0.25,x+0.75]x[y+0.25,y+0.75],query=containment-of-10x10-cells(100-rows),"
        + "median-of-\(queryRepetitions),one-read-transaction-each,new-connection,caches-off,one-untimed-query-first"

    /// The containment query for the window whose lowest cell is (`x`, `y`).
    static func windowQuery(x: Int, y: Int) throws -> DatabaseQuery {
        try DatabaseQuery(
            format: "WHERE minX >= ? AND maxX <= ? AND minY >= ? AND maxY <= ?", Double(x), Double(x + windowSide),
            Double(y), Double(y + windowSide))
    }

    /// Builds the grid of `context.options.scaleCount` places and times the queries.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a query finds another number of rows than its
    ///   window holds, or the index does not hold every row.
    func runQuery(context: SuiteContext) throws -> WorkloadResult {
        let count = context.options.scaleCount
        let configuration = context.configuration.scaled(to: count)
        let url = context.directory.appendingPathComponent("extension-q.sqlite")
        let side = max(1, Int(Double(count).squareRoot().rounded(.up)))
        // Where a window may start so that all its cells exist (the last grid row may be partial).
        let fullRows = count / side
        let xStarts = max(0, side - Self.windowSide)
        let yStarts = max(0, fullRows - Self.windowSide)
        func cellsInWindow(x: Int, y: Int) -> Int {
            var cells = 0
            for cellY in y..<(y + Self.windowSide) {
                for cellX in x..<min(x + Self.windowSide, side) where cellY * side + cellX < count { cells += 1 }
            }
            return cells
        }
        var order = Array(0..<count)
        var generator = SplitMix64(seed: 42)
        for index in stride(from: count - 1, to: 0, by: -1) {
            order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        let windows = try (0...Self.queryRepetitions).map { _ in
            let x = Int(generator.next() % UInt64(xStarts + 1))
            let y = Int(generator.next() % UInt64(yStarts + 1))
            return (query: try Self.windowQuery(x: x, y: y), expected: cellsInWindow(x: x, y: y))
        }

        var samples: [Double] = []
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, configuration, run: context.options)
            database.registerCodable(Place.self, forCollection: Self.placeCollection)
            try database.register(
                RTreeIndex(
                    setup: RTreeIndexSetup(columns: ["minX", "maxX", "minY", "maxY"]),
                    handler: .object(Place.self) { row, box in
                        let (x, y) = (Double(row.object.x), Double(row.object.y))
                        box = ["minX": x + 0.25, "maxX": x + 0.75, "minY": y + 0.25, "maxY": y + 0.75]
                    },
                    allowedCollections: .only([Self.placeCollection])),
                withName: Self.queryID)
            try database.newConnection(config: CofferStore.uncached).readWrite { tx in
                for cell in order {
                    try tx.setObject(
                        Place(x: cell % side, y: cell / side), forKey: "place-\(cell)",
                        inCollection: Self.placeCollection)
                }
            }
            let connection = try database.newConnection(config: CofferStore.uncached)
            let indexed = try connection.read { tx in try tx.rtreeIndex(Self.queryID)?.count(matching: .matchingAll) }
            guard indexed == count else {
                throw BenchError(.checkMismatch, "CofferExt:Q1t the index holds \(indexed ?? -1) of \(count) rows")
            }
            for (number, window) in windows.enumerated() {
                let found = try Stopwatch.measure {
                    try connection.read { tx in try tx.rtreeIndex(Self.queryID)?.keys(matching: window.query) }
                }
                guard found.value?.count == window.expected else {
                    throw BenchError(
                        .checkMismatch,
                        "CofferExt:Q1t query \(number) found \(found.value?.count ?? -1) rows, expected \(window.expected)"
                    )
                }
                // The first query connects the index and prepares its statements on the new connection.
                if number > 0 { samples.append(found.seconds) }
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        let hits = windows.dropFirst().map(\.expected)
        let (fewest, most) = (hits.min() ?? 0, hits.max() ?? 0)
        var result = CofferSuite.medianResult(Self.queryID, samples, baselineID: nil)
        result.extra.insert(
            contentsOf: [
                (name: "rows", value: String(count)),
                (name: "hits", value: fewest == most ? "\(most)" : "\(fewest)-\(most)"),
                (name: "cache_kib", value: String(configuration.effectiveCacheKiB)),
            ], at: 0)
        result.extra.append((name: "within_1ms", value: result.seconds <= 0.001 ? "yes" : "no"))
        return result
    }
}
