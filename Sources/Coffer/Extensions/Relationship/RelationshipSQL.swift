/// The statements of a relationship's two tables.
///
/// The edge table has one row per edge: `src` and `dst` are rowids in `database2` (so renaming
/// nothing and moving nothing can break an edge), `file` holds a file destination as its
/// serializer wrote it (`dst` is then NULL), `manual` tells edges added by hand from nodes'.
struct RelationshipSQL: Sendable {
    let edges: String
    let files: String
    let create: [String]
    /// The columns every edge query reads, in ``RelationshipMaintainer/storedEdge(_:)``'s order.
    static let columns = "\"rowid\", \"name\", \"src\", \"dst\", \"file\", \"rules\", \"manual\""

    let insert: String
    let selectBySource: String
    let selectByDestination: String
    let selectProtocolBySource: String
    let deleteEdge: String
    let deleteBySource: String
    let deleteByDestination: String
    let deleteProtocol: String
    let deleteAll: String
    let updateRules: String
    let countByDestinationName: String
    let countBySourceName: String
    let selectFilesNamed: String
    let selectAllFiles: String
    let insertFileRecord: String
    let selectFileRecords: String
    let deleteFileRecord: String
    let findManual: String
    let findManualFile: String

    init(tables: [String]) {
        let edgeTable = tables.first ?? "Relationship"
        let fileTable = tables.count > 1 ? tables[1] : edgeTable + "_files"
        let e = ExtensionTables.quote(edgeTable)
        let f = ExtensionTables.quote(fileTable)
        edges = e
        files = f
        create = [
            """
            CREATE TABLE IF NOT EXISTS \(e) ("rowid" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, \
            "src" INTEGER NOT NULL, "dst" INTEGER, "file" BLOB, "rules" INTEGER NOT NULL, "manual" INTEGER NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS \(ExtensionTables.quote(edgeTable + "_src")) ON \(e) (\"src\", \"name\")",
            "CREATE INDEX IF NOT EXISTS \(ExtensionTables.quote(edgeTable + "_dst")) ON \(e) (\"dst\", \"name\")",
            "CREATE INDEX IF NOT EXISTS \(ExtensionTables.quote(edgeTable + "_name")) ON \(e) (\"name\")",
            "CREATE TABLE IF NOT EXISTS \(f) (\"rowid\" INTEGER PRIMARY KEY, \"file\" BLOB NOT NULL)",
        ]
        let columns = Self.columns
        insert =
            "INSERT INTO \(e) (\"name\", \"src\", \"dst\", \"file\", \"rules\", \"manual\") VALUES (?, ?, ?, ?, ?, ?)"
        selectBySource = "SELECT \(columns) FROM \(e) WHERE \"src\" = ?"
        selectByDestination = "SELECT \(columns) FROM \(e) WHERE \"dst\" = ?"
        selectProtocolBySource = "SELECT \(columns) FROM \(e) WHERE \"src\" = ? AND \"manual\" = 0"
        deleteEdge = "DELETE FROM \(e) WHERE \"rowid\" = ?"
        deleteBySource = "DELETE FROM \(e) WHERE \"src\" = ?"
        deleteByDestination = "DELETE FROM \(e) WHERE \"dst\" = ?"
        deleteProtocol = "DELETE FROM \(e) WHERE \"manual\" = 0"
        deleteAll = "DELETE FROM \(e)"
        updateRules = "UPDATE \(e) SET \"rules\" = ? WHERE \"rowid\" = ?"
        countByDestinationName = "SELECT count(*) FROM \(e) WHERE \"dst\" = ? AND \"name\" = ?"
        countBySourceName = "SELECT count(*) FROM \(e) WHERE \"src\" = ? AND \"name\" = ?"
        selectFilesNamed = "SELECT \(columns) FROM \(e) WHERE \"name\" = ? AND \"file\" IS NOT NULL"
        selectAllFiles = "SELECT \(columns) FROM \(e) WHERE \"file\" IS NOT NULL"
        insertFileRecord = "INSERT INTO \(f) (\"file\") VALUES (?)"
        selectFileRecords = "SELECT \"rowid\", \"file\" FROM \(f)"
        deleteFileRecord = "DELETE FROM \(f) WHERE \"rowid\" = ?"
        findManual =
            "SELECT \(columns) FROM \(e) WHERE \"src\" = ? AND \"name\" = ? AND \"dst\" = ? AND \"manual\" = 1"
        findManualFile =
            "SELECT \(columns) FROM \(e) WHERE \"src\" = ? AND \"name\" = ? AND \"file\" IS NOT NULL AND \"manual\" = 1"
    }

    /// An edge query: `SELECT` the edge columns with the conditions given (nil: any).
    func select(name: String?, source: Int64?, destination: Int64?, filesOnly: Bool) -> ExtensionQuery {
        let (filter, arguments) = Self.filter(
            name: name, source: source, destination: destination, filesOnly: filesOnly)
        return ExtensionQuery("SELECT \(Self.columns) FROM \(edges)\(filter) ORDER BY \"rowid\"", arguments: arguments)
    }

    /// The count of edges with the conditions given (nil: any).
    func count(name: String?, source: Int64?, destination: Int64?) -> ExtensionQuery {
        let (filter, arguments) = Self.filter(name: name, source: source, destination: destination, filesOnly: false)
        return ExtensionQuery("SELECT count(*) FROM \(edges)\(filter)", arguments: arguments)
    }

    private static func filter(
        name: String?, source: Int64?, destination: Int64?, filesOnly: Bool
    ) -> (String, [DatabaseValue]) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let name {
            conditions.append("\"name\" = ?")
            arguments.append(.text(name))
        }
        if let source {
            conditions.append("\"src\" = ?")
            arguments.append(.integer(source))
        }
        if let destination {
            conditions.append("\"dst\" = ?")
            arguments.append(.integer(destination))
        }
        if filesOnly { conditions.append("\"file\" IS NOT NULL") }
        return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), arguments)
    }
}
