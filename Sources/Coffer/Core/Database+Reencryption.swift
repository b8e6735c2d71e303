import CofferSQLite
import Foundation

/// Moving a collection's encrypted values to the keyring's current key (value-key rotation).
extension Database {
    /// How far a re-encryption has come.
    public struct ReencryptionProgress: Sendable {
        /// Rows examined so far in this run.
        public var examined: Int
        /// Rows rewritten under the current key so far in this run.
        public var rewritten: Int
        /// Rows in the collection when the run started.
        public var total: Int
    }

    /// Rewrites every object and metadata blob of `collection` that is not encrypted under its
    /// chain's current key, `batchSize` rows per write transaction.
    ///
    /// Readers and writers keep working between batches: every row stays readable throughout
    /// (old key ids stay in the keyring until you remove them). The position is saved in the
    /// file after each batch, so a run that is interrupted — by an error, by `progress`
    /// returning false, or by a crash — resumes where it stopped when called again.
    /// Values are re-encrypted as they are: they keep their bytes, nobody is notified, and
    /// extensions are not involved.
    ///
    /// A run examines only the rows that existed when it started (up to the highest rowid then):
    /// rows inserted meanwhile are written under the current key already, and would otherwise keep
    /// a run going for as long as writers insert.
    ///
    /// Rows that are not encrypted at all (a collection that newly gained an encryption stage) are
    /// read only when the chain was created with `acceptsUnencryptedBlobs: true`, the explicit
    /// migration setting; under the default, such a row stops the run with `.serialization`
    /// (``SerializationError/Code/unencryptedBlob``) and is left as it is.
    /// - Parameters:
    ///   - collection: The collection whose blobs move to the current key.
    ///   - batchSize: How many rows each write transaction examines.
    ///   - progress: Called after each batch that leaves rows to examine; return false to stop (resume later).
    /// - Returns: the final progress of this run.
    /// - Complexity: O(rows in the collection); one write transaction per batch.
    /// - Throws: ``DatabaseError`` (`.serialization` naming the row that cannot be decoded —
    ///   that row is left as it is).
    @discardableResult
    public func reencrypt(
        collection: String, batchSize: Int = 500,
        progress: ((ReencryptionProgress) -> Bool)? = nil
    ) throws -> ReencryptionProgress {
        let connection = try newConnection(
            config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false))
        let (total, lastRowid) = try connection.read { tx in
            (try tx.numberOfKeys(inCollection: collection), try tx.highestRowid(inCollection: collection))
        }
        var status = ReencryptionProgress(examined: 0, rewritten: 0, total: total)
        while true {
            let (examined, rewritten, done) = try connection.readWrite { tx in
                try tx.reencryptBatch(collection: collection, through: lastRowid, limit: max(1, batchSize))
            }
            status.examined += examined
            status.rewritten += rewritten
            if done { return status }
            if let progress, !progress(status) { return status }
        }
    }
}

extension ReadWriteTransaction {
    static let reencryptionRecord = "coffer.reencrypt"

    /// Re-encrypts up to `limit` rows after the saved cursor and at most `lastRowid`; returns
    /// (examined, rewritten, finished).
    func reencryptBatch(collection: String, through lastRowid: Int64, limit: Int) throws -> (Int, Int, Bool) {
        let config = configs.config(for: collection)
        let cursor = try yapInt(extension: Self.reencryptionRecord, key: collection) ?? 0
        var rows: [(rowid: Int64, key: String, data: Data?, metadata: Data?)] = []
        try mapSQLite(collection: collection) {
            let stmt = try core.sqlite.prepare(
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
            let data = try reencrypted(row.data, chain: config.objectChain, ck, what: "object")
            let metadata = try reencrypted(row.metadata, chain: config.metadataChain, ck, what: "metadata")
            guard data != nil || metadata != nil else { continue }
            try mapSQLite(collection: collection, key: row.key) {
                let stmt = try core.sqlite.cachedStatement(SQL.updateAll)
                try stmt.bind(data ?? row.data, at: 1)
                try stmt.bind(metadata ?? row.metadata, at: 2)
                try stmt.bind(row.rowid, at: 3)
                try stmt.run()
            }
            rewritten += 1
        }
        let finished = rows.count < limit || rows.last?.rowid == lastRowid
        if finished {
            try removeYapValue(extension: Self.reencryptionRecord, key: collection)
        } else if let last = rows.last {
            try setYapValue(.integer(last.rowid), extension: Self.reencryptionRecord, key: collection)
        }
        return (rows.count, rewritten, finished)
    }

    /// The blob rewritten under the chain's current key, or nil when it is fine as it is.
    private func reencrypted(_ blob: Data?, chain: SerializerChain, _ ck: CollectionKey, what: String) throws -> Data? {
        guard let blob, chain.needsReencryption(blob) else { return nil }
        do {
            let value = try chain.deserialize(blob, collection: ck.collection, key: ck.key)
            return try chain.serialize(value, collection: ck.collection, key: ck.key)
        } catch {
            throw Self.serializationError(error, "cannot re-encrypt the stored \(what)", ck)
        }
    }
}
