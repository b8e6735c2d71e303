/// The dimensions of an ``RTreeIndex``: one pair of minimum and maximum columns per dimension
/// (YapDatabase's `YapDatabaseRTreeIndexSetup`).
///
/// ```swift
/// let setup = RTreeIndexSetup(columns: ["minLat", "maxLat", "minLon", "maxLon"])
/// ```
///
/// SQLite's R*Tree keeps 1 to 5 dimensions. With ``CoordinateType/float32`` (the default) it
/// stores each coordinate as a 32-bit float, rounding a minimum down and a maximum up, so a box
/// only ever grows: a query can match a row whose exact box lies just outside it (by less than a
/// float's precision, about 1 part in 16 million), never miss one inside. ``CoordinateType/int32``
/// stores whole numbers exactly.
public struct RTreeIndexSetup: Sendable, Hashable {
    /// How coordinates are stored.
    public enum CoordinateType: String, Sendable, Hashable, CaseIterable {
        /// 32-bit floats (SQLite's `rtree` module): values beyond ±3.4 × 10³⁸ are refused.
        case float32 = "rtree"
        /// 32-bit signed integers (SQLite's `rtree_i32` module): exact for whole numbers from
        /// `Int32.min` to `Int32.max`; other values are truncated toward zero, and values that
        /// truncate outside that range are refused.
        case int32 = "rtree_i32"

        /// The values a handler may give.
        var storableRange: ClosedRange<Double> {
            switch self {
            case .float32: -Double(Float.greatestFiniteMagnitude)...Double(Float.greatestFiniteMagnitude)
            // Truncation toward zero keeps anything above Int32.min − 1 and below Int32.max + 1.
            case .int32: (Double(Int32.min) - 1).nextUp...(Double(Int32.max) + 1).nextDown
            }
        }
    }

    /// The column names in order: minimum and maximum of the first dimension, then of the next.
    public let columns: [String]
    /// How coordinates are stored.
    public let coordinateType: CoordinateType

    /// A setup with the given columns (an even number, 2 to 10: a min/max pair per dimension).
    public init(columns: [String], coordinateType: CoordinateType = .float32) {
        self.columns = columns
        self.coordinateType = coordinateType
    }

    /// The number of dimensions.
    public var dimensions: Int { columns.count / 2 }

    /// Checks the columns: 1 to 5 pairs of plain, distinct identifiers, none a rowid alias.
    /// - Throws: ``DatabaseError`` `.extensionFailure` naming the problem.
    func validate() throws {
        guard columns.count.isMultiple(of: 2), (2...10).contains(columns.count) else {
            throw DatabaseError(
                .extensionFailure,
                "an R*Tree index needs 1 to 5 dimensions, each a min and a max column (2 to 10 columns); "
                    + "got \(columns.count)")
        }
        try ExtensionSQL.validateColumnNames(
            columns, reserved: ["rowid", "oid", "_rowid_"], owner: "the R*Tree index")
    }
}
