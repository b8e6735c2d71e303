import CofferSQLite
import Foundation

/// The batched, resumable rewrite of a collection's stored blobs that re-encryption and
/// re-encoding share.
extension Database {
    /// What decides a row's new blob: nil keeps it as it is.
    typealias BlobRewrite = (
        _ tx: ReadWriteTransaction, _ blob: Data?, _ chain: SerializerChain, _ ck: CollectionKey, _ what: String
    ) throws -> Data?

    /// Examines every row of `collection` up to the highest rowid at the start, `batchSize` rows
    /// per write transaction, writing the blobs `rewrite` returns; the position is saved under
    /// `record` after each batch, so an interrupted run resumes there.
    func rewriteRows(
        of collection: String, record: String, batchSize: Int,
        progress: ((ReencryptionProgress) -> Bool)?, rewrite: @escaping BlobRewrite
    ) throws -> ReencryptionProgress {
        let connection = try newConnection(
            config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false))
        let (total, lastRowid) = try connection.read { tx in
            (try tx.numberOfKeys(inCollection: collection), try tx.highestRowid(inCollection: collection))
        }
        var status = ReencryptionProgress(examined: 0, rewritten: 0, total: total)
        while true {
            let (examined, rewritten, done) = try connection.readWrite { tx in
                try tx.rewriteBatch(
                    collection: collection, record: record, through: lastRowid, limit: max(1, batchSize),
                    rewrite: rewrite)
            }
            status.examined += examined
            status.rewritten += rewritten
            if done { return status }
            if let progress, !progress(status) { return status }
        }
    }
}

extension ReadWriteTransaction {
    /// Rewrites up to `limit` rows after the cursor saved under `record` and at most `lastRowid`;
    /// returns (examined, rewritten, finished).
    func rewriteBatch(
        collection: String, record: String, through lastRowid: Int64, limit: Int, rewrite: Database.BlobRewrite
    ) throws -> (Int, Int, Bool) {
        let config = configs.config(for: collection)
        let cursor = try yapInt(extension: record, key: collection) ?? 0
        var rows: [(rowid: Int64, key: String, data: Data?, metadata: Data?)] = []
        try mapSQLite(collection: collection) {
            let stmt = try sqlite.prepare(
                #"SELECT "rowid", "key", "data", "metadata" FROM "database2" WHERE "collection" = ? AND "rowid" > ? AND "rowid" <= ? ORDER BY "rowid" LIMIT ?"#
            )
            try stmt.bind(collection, at: 1)
            try stmt.bind(cursor, at: 2)
            try stmt.bind(lastRowid, at: 3)
            try stmt.bind(Int64(limit), at: 4)
            while try stmt.step() { rows.append((stmt.int64(0), stmt.text(1), stmt.data(2), stmt.data(3))) }
        }
        var rewritten = 0
        for row in rows {
            let ck = CollectionKey(collection: collection, key: row.key)
            let data = try rewrite(self, row.data, config.objectChain, ck, "object")
            let metadata = try rewrite(self, row.metadata, config.metadataChain, ck, "metadata")
            guard data != nil || metadata != nil else { continue }
            try mapSQLite(collection: collection, key: row.key) {
                let stmt = try sqlite.cachedStatement(SQL.updateAll)
                try stmt.bind(data ?? row.data, at: 1)
                try stmt.bind(metadata ?? row.metadata, at: 2)
                try stmt.bind(row.rowid, at: 3)
                try stmt.run()
            }
            rewritten += 1
        }
        let finished = rows.count < limit || rows.last?.rowid == lastRowid
        if finished {
            try removeYapValue(extension: record, key: collection)
        } else if let last = rows.last {
            try setYapValue(.integer(last.rowid), extension: record, key: collection)
        }
        return (rows.count, rewritten, finished)
    }
}
