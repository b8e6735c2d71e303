/// Range and bounding-box queries over boxes derived from rows, on SQLite's R*Tree module
/// (YapDatabase's `YapDatabaseRTreeIndex`).
///
/// A handler fills each dimension's minimum and maximum for a row; the boxes live in the virtual
/// table `rTreeIndex_<name>` (its rowid is the row's rowid in `database2`) and are queried with
/// ``DatabaseQuery``:
///
/// ```swift
/// let places = RTreeIndex(
///     setup: RTreeIndexSetup(columns: ["minLat", "maxLat", "minLon", "maxLon"]),
///     handler: .object(Place.self) { row, box in
///         box["minLat"] = row.object.latitude
///         box["maxLat"] = row.object.latitude
///         box["minLon"] = row.object.longitude
///         box["maxLon"] = row.object.longitude
///     },
///     allowedCollections: .only(["places"]))
/// try database.register(places, withName: "places")
///
/// try connection.read { tx in
///     let query = try DatabaseQuery(
///         format: "WHERE minLat >= ? AND maxLat <= ? AND minLon >= ? AND maxLon <= ?", 48.0, 49.0, 2.0, 3.0)
///     try tx.rtreeIndex("places")?.enumerateKeys(matching: query) { collection, key, stop in … }
/// }
/// ```
///
/// A handler sets every column or none: no values give the row no entry (and remove an existing
/// one); some but not all, a value that is not finite or outside the coordinate type's range, or
/// a minimum above its maximum fail the write with `.extensionFailure`. Coordinates are stored
/// as 32-bit floats (minimum rounded down, maximum up) unless the setup asks for integers; see
/// ``RTreeIndexSetup``.
///
/// SQLite sizes R*Tree nodes to the page: 64 bytes less than a page, and at most 51 entries
/// (1,228 bytes for two dimensions, 2,452 for five). SQLCipher keeps 48 bytes of every page for
/// its IV and HMAC, so at 1,024-byte pages a 960-byte node is more than a b-tree leaf can keep of
/// a row, and its end spills into an overflow page: every node read then reads two pages. Use
/// 4,096-byte pages (``CipherSettings/pageSize``: the default of new files, of SQLCipher 4 and of
/// ``CipherSettings/recommended``), where a node of any dimension fits its page.
///
/// Changing the setup, the handler's logic or ``allowedCollections`` needs a new ``versionTag``
/// to rebuild the index from every row (a changed setup is detected and rebuilt even without one).
public struct RTreeIndex: DatabaseExtension {
    /// The dimensions.
    public let setup: RTreeIndexSetup
    /// The closure that fills a row's box.
    public let handler: RTreeIndexHandler
    /// A caller-chosen version: registering with a different tag rebuilds the index.
    public let versionTag: String
    /// The collections whose rows are indexed; rows elsewhere are never passed to the handler.
    public let allowedCollections: AllowList<String>

    /// Creates an R*Tree index configuration (registration checks the setup).
    public init(
        setup: RTreeIndexSetup, handler: RTreeIndexHandler, versionTag: String = "",
        allowedCollections: AllowList<String> = .all
    ) {
        self.setup = setup
        self.handler = handler
        self.versionTag = versionTag
        self.allowedCollections = allowedCollections
    }

    /// The name of the R*Tree table for an extension registered as `registeredName`.
    public static func tableName(registeredName: String) -> String {
        "rTreeIndex_" + registeredName
    }

    /// "RTreeIndex", as YapDatabase records it.
    public var kind: String { "RTreeIndex" }

    /// The virtual table `rTreeIndex_<name>` (and the shadow tables its module makes).
    public func tableNames(registeredName: String) -> [String] {
        [Self.tableName(registeredName: registeredName)]
    }

    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// The index's SQL for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        let sql = RTreeIndexSQL(registeredName: registration.name, setup: setup)
        return StatelessConnectionState { DerivedTableMaintainer(RTreeIndexTransaction(context: $0, index: self, sql: sql)) }
    }
}

/// The handler of an ``RTreeIndex``: fills `box[column] = value` for every column of the setup.
public typealias RTreeIndexHandler = RowHandler<[String: Double]>
