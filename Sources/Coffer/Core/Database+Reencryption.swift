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
        try rewriteRows(
            of: collection, record: ReadWriteTransaction.reencryptionRecord, batchSize: batchSize, progress: progress
        ) { tx, blob, chain, ck, what in
            try tx.reencrypted(blob, chain: chain, ck, what: what)
        }
    }
}

extension ReadWriteTransaction {
    static let reencryptionRecord = "coffer.reencrypt"

    /// The blob rewritten under the chain's current key, or nil when it is fine as it is.
    func reencrypted(_ blob: Data?, chain: SerializerChain, _ ck: CollectionKey, what: String) throws -> Data? {
        guard let blob, chain.needsReencryption(blob) else { return nil }
        do {
            let value = try chain.deserialize(blob, collection: ck.collection, key: ck.key)
            return try chain.serialize(value, collection: ck.collection, key: ck.key)
        } catch {
            throw Self.serializationError(error, "cannot re-encrypt the stored \(what)", ck)
        }
    }
}
