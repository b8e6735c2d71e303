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

    init(registeredName: String) {
        let names = Self.tableNames(registeredName: registeredName)
        queue = names[0]
        tag = names[1]
        mapping = names[2]
    }

    static func tableNames(registeredName: String) -> [String] {
        let base = "CloudCore_" + registeredName
        return [base + "_queue", base + "_tag", base + "_mapping"]
    }

    private func q(_ name: String) -> String { ExtensionTables.quote(name) }

    var createTables: String {
        """
        CREATE TABLE IF NOT EXISTS \(q(queue)) ("rowid" INTEGER PRIMARY KEY, "uuid" BLOB NOT NULL, \
        "pipeline" TEXT NOT NULL, "graph" INTEGER NOT NULL, "type" TEXT NOT NULL, "operation" BLOB NOT NULL);
        CREATE UNIQUE INDEX IF NOT EXISTS \(q(queue + "_uuid")) ON \(q(queue)) ("uuid");
        CREATE TABLE IF NOT EXISTS \(q(tag)) ("rowid" INTEGER NOT NULL, "identifier" TEXT NOT NULL, "tag", \
        PRIMARY KEY ("rowid", "identifier"));
        CREATE TABLE IF NOT EXISTS \(q(mapping)) ("rowid" INTEGER NOT NULL, "cloudID" TEXT NOT NULL, \
        PRIMARY KEY ("rowid", "cloudID"));
        CREATE INDEX IF NOT EXISTS \(q(mapping + "_cloudID")) ON \(q(mapping)) ("cloudID");
        """
    }

    // MARK: Queue

    var insertOperation: String {
        "INSERT INTO \(q(queue)) (\"uuid\", \"pipeline\", \"graph\", \"type\", \"operation\") VALUES (?, ?, ?, ?, ?)"
    }
    var selectOperation: String {
        "SELECT \"pipeline\", \"graph\", \"type\", \"operation\" FROM \(q(queue)) WHERE \"uuid\" = ?"
    }
    var updateOperation: String {
        "UPDATE \(q(queue)) SET \"type\" = ?, \"operation\" = ? WHERE \"uuid\" = ?"
    }
    var deleteOperation: String {
        "DELETE FROM \(q(queue)) WHERE \"uuid\" = ?"
    }
    /// Every operation, in commit order and then the order added.
    var selectAll: String {
        "SELECT \"uuid\", \"pipeline\", \"graph\", \"type\", \"operation\" FROM \(q(queue)) ORDER BY \"graph\", \"rowid\""
    }
    var selectPipeline: String {
        "SELECT \"uuid\", \"pipeline\", \"graph\", \"type\", \"operation\" FROM \(q(queue)) WHERE \"pipeline\" = ? "
            + "ORDER BY \"graph\", \"rowid\""
    }
    var selectGraphs: String {
        "SELECT DISTINCT \"graph\" FROM \(q(queue)) WHERE \"pipeline\" = ? ORDER BY \"graph\""
    }
    var selectMaxGraph: String {
        "SELECT max(\"graph\") FROM \(q(queue))"
    }

    // MARK: Tags

    var selectTag: String {
        "SELECT \"tag\" FROM \(q(tag)) WHERE \"rowid\" = ? AND \"identifier\" = ?"
    }
    var selectTags: String {
        "SELECT \"identifier\", \"tag\" FROM \(q(tag)) WHERE \"rowid\" = ?"
    }
    var upsertTag: String {
        "INSERT OR REPLACE INTO \(q(tag)) (\"rowid\", \"identifier\", \"tag\") VALUES (?, ?, ?)"
    }
    var deleteTag: String {
        "DELETE FROM \(q(tag)) WHERE \"rowid\" = ? AND \"identifier\" = ?"
    }
    var deleteTagsOfRow: String {
        "DELETE FROM \(q(tag)) WHERE \"rowid\" = ?"
    }

    // MARK: Mappings

    var insertMapping: String {
        "INSERT OR IGNORE INTO \(q(mapping)) (\"rowid\", \"cloudID\") VALUES (?, ?)"
    }
    var deleteMapping: String {
        "DELETE FROM \(q(mapping)) WHERE \"rowid\" = ? AND \"cloudID\" = ?"
    }
    var deleteMappingsOfRow: String {
        "DELETE FROM \(q(mapping)) WHERE \"rowid\" = ?"
    }
    var selectCloudIDs: String {
        "SELECT \"cloudID\" FROM \(q(mapping)) WHERE \"rowid\" = ? ORDER BY \"cloudID\""
    }
    var selectAttachedRows: String {
        "SELECT d.\"collection\", d.\"key\" FROM \(q(mapping)) AS m JOIN \"database2\" AS d ON d.\"rowid\" = m.\"rowid\" "
            + "WHERE m.\"cloudID\" = ? ORDER BY d.\"collection\", d.\"key\""
    }

    // MARK: Row removal

    func deleteOfCollection(_ table: String) -> String {
        "DELETE FROM \(q(table)) WHERE \"rowid\" IN (SELECT \"rowid\" FROM \"database2\" WHERE \"collection\" = ?)"
    }
    func deleteAll(_ table: String) -> String {
        "DELETE FROM \(q(table))"
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
