import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// SQLite 3.15.2's R*Tree conversion of a coordinate to the 32-bit float it stores (ext/rtree/rtree.c,
/// `rtreeValueDown` and `rtreeValueUp`, called from `rtreeUpdate` for a minimum and a maximum).
///
/// Replicated step by step rather than modelled as "the nearest float below / above": when the
/// nearest float lies on the wrong side, rtree.c scales the double by 1 ∓ 2⁻²³ and converts again,
/// which can land two floats away, and a linear scan that used `nextDown`/`nextUp` would disagree
/// with the index on exactly those rows.
enum RTreeFloatRounding {
    /// `RNDTOWARDS`, `(1.0 - 1.0/8388608.0)`.
    static let towardZero = 1.0 - 1.0 / 8_388_608.0
    /// `RNDAWAY`, `(1.0 + 1.0/8388608.0)`.
    static let awayFromZero = 1.0 + 1.0 / 8_388_608.0

    /// The float R*Tree stores for a minimum (`rtreeValueDown`).
    static func down(_ value: Double) -> Float {
        var float = Float(value)
        if Double(float) > value {
            float = Float(value * (value < 0 ? awayFromZero : towardZero))
        }
        return float
    }

    /// The float R*Tree stores for a maximum (`rtreeValueUp`).
    static func up(_ value: Double) -> Float {
        var float = Float(value)
        if Double(float) < value {
            float = Float(value * (value < 0 ? towardZero : awayFromZero))
        }
        return float
    }
}

/// A box for the brute-force comparison: the exact doubles the handler hands the index.
struct BruteForceBox: Codable, Sendable, Equatable {
    var minX: Double
    var maxX: Double
    var minY: Double
    var maxY: Double

    /// The four values in column order.
    var values: [Double] { [minX, maxX, minY, maxY] }
}

extension Extensions {
    /// RTreeIndex against a linear scan: 10,000 random boxes, 1,000 random containment and overlap
    /// queries, every answer compared key for key — once with float coordinates (the scan applies
    /// R*Tree's own rounding) and once with `.int32` coordinates (the scan compares exactly).
    @Suite struct RTreeIndexBruteForceTests {
        static let boxCount = 10_000
        static let queryCount = 1_000
        static let columns = ["minX", "maxX", "minY", "maxY"]

        /// A comparison operator of a query.
        enum Operator: String {
            case atLeast = ">="
            case above = ">"
            case atMost = "<="
            case below = "<"
        }

        /// One comparison of a query: a column (index into ``columns``), an operator, a value.
        struct Constraint {
            var column: Int
            var op: Operator
            var value: Double
        }

        /// A query and the text of its `WHERE` clause.
        struct Query {
            var constraints: [Constraint]

            var format: String {
                "WHERE "
                    + constraints.map { "\(RTreeIndexBruteForceTests.columns[$0.column]) \($0.op.rawValue) ?" }
                    .joined(separator: " AND ")
            }

            var arguments: [any DatabaseQueryArgument] { constraints.map(\.value) }

            /// The boxes a linear scan finds; `stored[column][box]` is a box's stored coordinate.
            func scan(_ stored: [[Double]]) -> Set<Int> {
                var candidates = Array(stored[0].indices)
                for constraint in constraints {
                    let value = constraint.value
                    let kept = stored[constraint.column].withUnsafeBufferPointer { column in
                        candidates.withUnsafeMutableBufferPointer { indexes in
                            // One loop per operator: a debug build is slow enough without a switch per box.
                            var kept = 0
                            switch constraint.op {
                            case .atLeast:
                                for index in indexes where column[index] >= value { indexes[kept] = index; kept += 1 }
                            case .above:
                                for index in indexes where column[index] > value { indexes[kept] = index; kept += 1 }
                            case .atMost:
                                for index in indexes where column[index] <= value { indexes[kept] = index; kept += 1 }
                            case .below:
                                for index in indexes where column[index] < value { indexes[kept] = index; kept += 1 }
                            }
                            return kept
                        }
                    }
                    candidates.removeLast(candidates.count - kept)
                }
                return Set(candidates)
            }
        }

        /// `minX >= a AND maxX <= b AND minY >= c AND maxY <= d`, or with strict operators.
        static func containment(_ x: ClosedRange<Double>, _ y: ClosedRange<Double>, strict: Bool) -> Query {
            let (low, high): (Operator, Operator) = strict ? (.above, .below) : (.atLeast, .atMost)
            return Query(
                constraints: [
                    Constraint(column: 0, op: low, value: x.lowerBound),
                    Constraint(column: 1, op: high, value: x.upperBound),
                    Constraint(column: 2, op: low, value: y.lowerBound),
                    Constraint(column: 3, op: high, value: y.upperBound),
                ])
        }

        /// `maxX >= a AND minX <= b AND maxY >= c AND minY <= d`, or with strict operators.
        static func overlap(_ x: ClosedRange<Double>, _ y: ClosedRange<Double>, strict: Bool) -> Query {
            let (low, high): (Operator, Operator) = strict ? (.above, .below) : (.atLeast, .atMost)
            return Query(
                constraints: [
                    Constraint(column: 1, op: low, value: x.lowerBound),
                    Constraint(column: 0, op: high, value: x.upperBound),
                    Constraint(column: 3, op: low, value: y.lowerBound),
                    Constraint(column: 2, op: high, value: y.upperBound),
                ])
        }

        /// A database with an R*Tree index of `setup` ("boxes", over collection "boxes") and `boxes`
        /// inserted in one transaction, each under its position as key.
        private func build(_ boxes: [BruteForceBox], _ setup: RTreeIndexSetup) throws -> TestDatabase {
            let test = try TestDatabase()
            test.database.registerCodable(BruteForceBox.self, forCollection: "boxes")
            try test.database.register(
                RTreeIndex(
                    setup: setup,
                    handler: .object(BruteForceBox.self) { row, box in
                        for (column, value) in zip(Self.columns, row.object.values) { box[column] = value }
                    }, allowedCollections: .only(["boxes"])),
                withName: "boxes")
            try test.connection().readWrite { tx throws in
                for (index, box) in boxes.enumerated() {
                    try tx.setObject(box, forKey: "\(index)", inCollection: "boxes")
                }
            }
            return test
        }

        /// Every stored coordinate, read from the R*Tree table itself: `[column][box index]`.
        private func storedColumns(_ tx: ReadTransaction, count: Int) throws -> [[Double]] {
            var stored = [[Double]](repeating: [Double](repeating: .nan, count: count), count: Self.columns.count)
            let stmt = try tx.core.sqlite.prepare(
                "SELECT d.key, r.minX, r.maxX, r.minY, r.maxY FROM \"rTreeIndex_boxes\" r "
                    + "JOIN database2 d ON d.rowid = r.rowid")
            while try stmt.step() {
                guard let index = Int(stmt.text(0)), (0..<count).contains(index) else { continue }
                for column in stored.indices { stored[column][index] = stmt.double(Int32(column + 1)) }
            }
            return stored
        }

        /// `boxes` as `[column][box index]`, minimums passed through `minimum` and maximums through `maximum`.
        static func columnValues(
            of boxes: [BruteForceBox], minimum: (Double) -> Double = { $0 }, maximum: (Double) -> Double = { $0 }
        ) -> [[Double]] {
            [
                boxes.map { minimum($0.minX) }, boxes.map { maximum($0.maxX) }, boxes.map { minimum($0.minY) },
                boxes.map { maximum($0.maxY) },
            ]
        }

        /// Runs every query through the index and compares its keys with `expected(query)`.
        /// - Returns: the number of queries with at least one match, and of all matches.
        private func compare(
            _ test: TestDatabase, _ queries: [Query], _ expected: [Set<Int>]
        ) throws -> (nonEmpty: Int, matches: Int) {
            var mismatches: [String] = []
            var nonEmpty = 0
            var matches = 0
            try test.connection().read { tx throws in
                let index = try #require(tx.rtreeIndex("boxes"))
                for (number, query) in queries.enumerated() {
                    let found = try index.keys(
                        matching: DatabaseQuery(format: query.format, arguments: query.arguments))
                    let keys = Set(found.compactMap { Int($0.key) })
                    #expect(keys.count == found.count)
                    let wanted = expected[number]
                    if keys != wanted, mismatches.count < 5 {
                        mismatches.append(
                            "query \(number) \(query.format) \(query.arguments): index-only \(keys.subtracting(wanted).sorted().prefix(5)), "
                                + "scan-only \(wanted.subtracting(keys).sorted().prefix(5))")
                    }
                    #expect(
                        try index.count(matching: DatabaseQuery(format: query.format, arguments: query.arguments))
                            == wanted.count)
                    nonEmpty += wanted.isEmpty ? 0 : 1
                    matches += wanted.count
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
            return (nonEmpty, matches)
        }

        // MARK: Float coordinates

        /// A coordinate anywhere from about ±0.01 to ±10,000,000, with a full 53-bit mantissa, and
        /// now and then exactly a float or one double step beside one.
        static func coordinate(_ rng: inout SeededGenerator) -> Double {
            let magnitude = pow(10, Double.random(in: -2...7, using: &rng))
            let value = Bool.random(using: &rng) ? magnitude : -magnitude
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: return Double(Float(value))
            case 1: return Double(Float(value)).nextUp
            case 2: return Double(Float(value)).nextDown
            default: return value
            }
        }

        /// A width relative to the magnitude of `center`: none (a point), below a float's precision,
        /// or anything up to a few times the coordinate itself.
        static func width(around center: Double, _ rng: inout SeededGenerator) -> Double {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return 0
            case 1: return abs(center) * pow(10, Double.random(in: -9 ... -6, using: &rng))
            default: return max(abs(center), 1) * pow(10, Double.random(in: -5...0.5, using: &rng))
            }
        }

        static func floatBoxes(_ rng: inout SeededGenerator) -> [BruteForceBox] {
            (0..<boxCount).map { _ in
                let (x, y) = (coordinate(&rng), coordinate(&rng))
                let (width, height) = (width(around: x, &rng), width(around: y, &rng))
                return BruteForceBox(minX: x, maxX: x + width, minY: y, maxY: y + height)
            }
        }

        /// Containment and overlap queries of three shapes, every fifth widened to take in neighbours.
        ///
        /// The shapes: random boxes at every scale; boxes whose bounds are some stored box's exact
        /// doubles (which the stored floats, rounded outward, usually fall outside); and bounds on
        /// the stored floats themselves (equality decides).
        static func floatQueries(_ boxes: [BruteForceBox], _ rng: inout SeededGenerator) -> [Query] {
            (0..<queryCount).map { number in
                var x: ClosedRange<Double>
                var y: ClosedRange<Double>
                switch number % 3 {
                case 0:
                    let (cx, cy) = (coordinate(&rng), coordinate(&rng))
                    let (hx, hy) = (
                        abs(cx) * pow(10, Double.random(in: -7 ... -0.5, using: &rng)),
                        abs(cy) * pow(10, Double.random(in: -7 ... -0.5, using: &rng))
                    )
                    x = (cx - hx)...(cx + hx)
                    y = (cy - hy)...(cy + hy)
                case 1:
                    let box = boxes[Int.random(in: 0..<boxes.count, using: &rng)]
                    x = box.minX...box.maxX
                    y = box.minY...box.maxY
                default:
                    let box = boxes[Int.random(in: 0..<boxes.count, using: &rng)]
                    x = Double(RTreeFloatRounding.down(box.minX))...Double(RTreeFloatRounding.up(box.maxX))
                    y = Double(RTreeFloatRounding.down(box.minY))...Double(RTreeFloatRounding.up(box.maxY))
                }
                if number % 5 == 4 {
                    let (wx, wy) = (abs(x.lowerBound) * 0.5, abs(y.lowerBound) * 0.5)
                    x = (x.lowerBound - wx)...(x.upperBound + wx)
                    y = (y.lowerBound - wy)...(y.upperBound + wy)
                }
                let strict = number % 7 == 0
                return number.isMultiple(of: 2)
                    ? containment(x, y, strict: strict) : overlap(x, y, strict: strict)
            }
        }

        @Test func floatCoordinatesAnswerAsALinearScanWithRTreeRounding() throws {
            var rng = SeededGenerator(seed: 0x5254_7265_6531)
            let boxes = Self.floatBoxes(&rng)
            let queries = Self.floatQueries(boxes, &rng)
            let test = try build(boxes, RTreeIndexSetup(columns: Self.columns))
            let model = Self.columnValues(
                of: boxes, minimum: { Double(RTreeFloatRounding.down($0)) },
                maximum: { Double(RTreeFloatRounding.up($0)) })
            let exact = Self.columnValues(of: boxes)
            // The replicated rounding gives every stored coordinate, bit for bit.
            let stored = try test.connection().read { tx in try storedColumns(tx, count: boxes.count) }
            for column in Self.columns.indices {
                let differing = boxes.indices.filter { model[column][$0].bitPattern != stored[column][$0].bitPattern }
                #expect(
                    differing.isEmpty,
                    "\(Self.columns[column]): \(differing.prefix(3).map { (boxes[$0], stored[column][$0]) })")
            }
            // Rounding makes a difference: most boxes are stored larger than given, and some minimums
            // two float steps down, which `nextDown` would not model.
            #expect(boxes.indices.filter { model[0][$0] != exact[0][$0] }.count > Self.boxCount / 2)
            let twoSteps = boxes.filter { box in
                let nearest = Float(box.minX)
                let below = Double(nearest) > box.minX ? nearest.nextDown : nearest
                return RTreeFloatRounding.down(box.minX) != below
            }
            #expect(!twoSteps.isEmpty)

            let expected = queries.map { $0.scan(model) }
            let (nonEmpty, matches) = try compare(test, queries, expected)
            #expect(nonEmpty > Self.queryCount / 3)
            #expect(matches > Self.queryCount)
            // The rounding decides the answer of many queries: an exact scan would disagree.
            let decided = zip(queries, expected).filter { $0.0.scan(exact) != $0.1 }
            #expect(decided.count > Self.queryCount / 10)
        }

        // MARK: Integer coordinates

        /// A whole number anywhere in Int32's range, mostly near zero, sometimes at the ends.
        static func integer(_ rng: inout SeededGenerator) -> Int64 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: return Int64.random(in: Int64(Int32.min)...Int64(Int32.min) + 1000, using: &rng)
            case 1: return Int64.random(in: Int64(Int32.max) - 1000...Int64(Int32.max), using: &rng)
            case 2, 3: return Int64.random(in: -2_000_000_000...2_000_000_000, using: &rng)
            default: return Int64.random(in: -100_000...100_000, using: &rng)
            }
        }

        @Test func int32CoordinatesAnswerAsAnExactLinearScan() throws {
            var rng = SeededGenerator(seed: 0x5254_7265_6532)
            let boxes = (0..<Self.boxCount).map { _ in
                let (x, y) = (Self.integer(&rng), Self.integer(&rng))
                let (width, height) = (Int64.random(in: 0...5000, using: &rng), Int64.random(in: 0...5000, using: &rng))
                return BruteForceBox(
                    minX: Double(x), maxX: Double(min(x + width, Int64(Int32.max))), minY: Double(y),
                    maxY: Double(min(y + height, Int64(Int32.max))))
            }
            let queries = (0..<Self.queryCount).map { number in
                var x: ClosedRange<Double>
                var y: ClosedRange<Double>
                if number % 3 == 1 {
                    let box = boxes[Int.random(in: 0..<boxes.count, using: &rng)]
                    x = box.minX...box.maxX
                    y = box.minY...box.maxY
                } else {
                    let (cx, cy) = (Self.integer(&rng), Self.integer(&rng))
                    let (hx, hy) = (
                        Int64.random(in: 0...20_000, using: &rng), Int64.random(in: 0...20_000, using: &rng)
                    )
                    x = Double(cx - hx)...Double(cx + hx)
                    y = Double(cy - hy)...Double(cy + hy)
                }
                let strict = number % 7 == 0
                return number.isMultiple(of: 2)
                    ? Self.containment(x, y, strict: strict) : Self.overlap(x, y, strict: strict)
            }
            let test = try build(boxes, RTreeIndexSetup(columns: Self.columns, coordinateType: .int32))
            let exact = Self.columnValues(of: boxes)
            let stored = try test.connection().read { tx in try storedColumns(tx, count: boxes.count) }
            #expect(stored == exact)
            let (nonEmpty, matches) = try compare(test, queries, queries.map { $0.scan(exact) })
            #expect(nonEmpty > Self.queryCount / 3)
            #expect(matches > Self.queryCount)
        }
    }
}
