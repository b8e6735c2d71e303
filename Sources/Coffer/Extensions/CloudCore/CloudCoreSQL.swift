import Foundation

/// The tables of one cloud core and the statements on them.
///
/// `queue`: one row per queued operation — `uuid` (16 bytes), `pipeline`, `graph` (commit order),
/// `type` (the payload's ``CloudOperationPayload/operationType``, readable without decoding) and
/// `operation` (the bytes from ``CloudOperationCoder``). `tag`: per row and identifier, one value.
/// `mapping`: rows attached to cloud identifiers, many to many. Rows are `database2` rowids.
struct CloudCoreSQL: Sendable {
    let queue: String
    let tag: String
    let mapping: String
    let createTables: String
    let insertOperation: String
    let selectOperation: String
    let updateOperation: String
    let deleteOperation: String
    let selectAll: String
    let selectPipeline: String
    let selectGraphs: String
    let selectTag: String
    let selectTags: String
    let upsertTag: String
    let deleteTag: String
    let deleteTagsOfRow: String
    let insertMapping: String
    let deleteMapping: String
    let deleteMappingsOfRow: String
    let selectCloudIDs: String
    let selectAttachedRows: String

    init(registeredName: String) {
        let names = Self.tableNames(registeredName: registeredName)
        queue = names[0]
        tag = names[1]
        mapping = names[2]
        // Built once: statements are looked up in the connection's cache by their text.
        let (queue, tag, mapping) = (Self.quote(queue), Self.quote(tag), Self.quote(mapping))
        createTables = """
            CREATE TABLE IF NOT EXISTS \(queue) ("rowid" INTEGER PRIMARY KEY, "uuid" BLOB NOT NULL, \
            "pipeline" TEXT NOT NULL, "graph" INTEGER NOT NULL, "type" TEXT NOT NULL, "operation" BLOB NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS \(Self.quote(names[0] + "_uuid")) ON \(queue) ("uuid");
            CREATE TABLE IF NOT EXISTS \(tag) ("rowid" INTEGER NOT NULL, "identifier" TEXT NOT NULL, "tag", \
            PRIMARY KEY ("rowid", "identifier"));
            CREATE TABLE IF NOT EXISTS \(mapping) ("rowid" INTEGER NOT NULL, "cloudID" TEXT NOT NULL, \
            PRIMARY KEY ("rowid", "cloudID"));
            CREATE INDEX IF NOT EXISTS \(Self.quote(names[2] + "_cloudID")) ON \(mapping) ("cloudID");
            """
        insertOperation =
            "INSERT INTO \(queue) (\"uuid\", \"pipeline\", \"graph\", \"type\", \"operation\") VALUES (?, ?, ?, ?, ?)"
        selectOperation = "SELECT \"pipeline\", \"graph\", \"type\", \"operation\" FROM \(queue) WHERE \"uuid\" = ?"
        updateOperation = "UPDATE \(queue) SET \"type\" = ?, \"operation\" = ? WHERE \"uuid\" = ?"
        deleteOperation = "DELETE FROM \(queue) WHERE \"uuid\" = ?"
        selectAll =
            "SELECT \"uuid\", \"pipeline\", \"graph\", \"type\", \"operation\" FROM \(queue) ORDER BY \"graph\", \"rowid\""
        selectPipeline =
            "SELECT \"uuid\", \"pipeline\", \"graph\", \"type\", \"operation\" FROM \(queue) WHERE \"pipeline\" = ? "
            + "ORDER BY \"graph\", \"rowid\""
        selectGraphs = "SELECT DISTINCT \"graph\" FROM \(queue) WHERE \"pipeline\" = ? ORDER BY \"graph\""
        selectTag = "SELECT \"tag\" FROM \(tag) WHERE \"rowid\" = ? AND \"identifier\" = ?"
        selectTags = "SELECT \"identifier\", \"tag\" FROM \(tag) WHERE \"rowid\" = ?"
        upsertTag = "INSERT OR REPLACE INTO \(tag) (\"rowid\", \"identifier\", \"tag\") VALUES (?, ?, ?)"
        deleteTag = "DELETE FROM \(tag) WHERE \"rowid\" = ? AND \"identifier\" = ?"
        deleteTagsOfRow = "DELETE FROM \(tag) WHERE \"rowid\" = ?"
        insertMapping = "INSERT OR IGNORE INTO \(mapping) (\"rowid\", \"cloudID\") VALUES (?, ?)"
        deleteMapping = "DELETE FROM \(mapping) WHERE \"rowid\" = ? AND \"cloudID\" = ?"
        deleteMappingsOfRow = "DELETE FROM \(mapping) WHERE \"rowid\" = ?"
        selectCloudIDs = "SELECT \"cloudID\" FROM \(mapping) WHERE \"rowid\" = ? ORDER BY \"cloudID\""
        selectAttachedRows =
            "SELECT d.\"collection\", d.\"key\" FROM \(mapping) AS m JOIN \"database2\" AS d ON d.\"rowid\" = m.\"rowid\" "
            + "WHERE m.\"cloudID\" = ? ORDER BY d.\"collection\", d.\"key\""
    }

    static func tableNames(registeredName: String) -> [String] {
        let base = "CloudCore_" + registeredName
        return [base + "_queue", base + "_tag", base + "_mapping"]
    }

    private static func quote(_ name: String) -> String { ExtensionTables.quote(name) }

    /// Every operation, in commit order and then the order added.

    // MARK: Row removal

    func deleteOfCollection(_ table: String) -> String {
        "DELETE FROM \(Self.quote(table)) WHERE \"rowid\" IN (SELECT \"rowid\" FROM \"database2\" WHERE \"collection\" = ?)"
    }
    func deleteAll(_ table: String) -> String {
        "DELETE FROM \(Self.quote(table))"
    }
}

extension UUID {
    /// The 16 bytes the queue table stores.
    var storedBytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// The UUID stored as `bytes`, or nil when they are not 16 bytes.
    init?(storedBytes bytes: Data) {
        guard bytes.count == 16 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
