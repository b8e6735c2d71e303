import Foundation

/// Moving a collection's stored values to the format its Codable codec writes (JSON to
/// Coffer's binary format, or back).
extension Database {
    /// How far a re-encoding has come (the same counts as a re-encryption's).
    public typealias ReencodingProgress = ReencryptionProgress

    /// Rewrites every object and metadata value of `collection` that is stored in another
    /// ``CodableFormat`` than its registered Codable codec writes, `batchSize` rows per write
    /// transaction.
    ///
    /// Never automatic: rows keep the format they were written in until they are written again
    /// or this runs. Every row stays readable throughout (the codecs read every format), readers
    /// and writers keep working between batches, and the position is saved after each batch, so
    /// an interrupted run resumes where it stopped when called again. Values are decoded with the
    /// collection's type and encoded again through its whole chain (stages included); nobody is
    /// notified and extensions are not involved, as the value does not change.
    ///
    /// A run examines the rows that existed when it started (up to the highest rowid then).
    ///
    /// - Parameters:
    ///   - collection: The collection to rewrite; its objects (and metadata, when it has a
    ///     Codable metadata codec) must have a Codable codec registered, for example with
    ///     ``registerCodable(_:forCollection:format:stages:)``.
    ///   - batchSize: How many rows each write transaction examines.
    ///   - progress: Called after each batch that leaves rows to examine; return false to stop (resume later).
    /// - Returns: The final progress of this run.
    /// - Complexity: O(rows in the collection); one write transaction per batch.
    /// - Throws: ``DatabaseError``: `.misuse` when the collection's objects have no registered
    ///   Codable codec (the default codec keeps bytes without their type, so it cannot
    ///   re-encode them); `.serialization` naming a row that cannot be decoded — that row and the
    ///   rest of its batch are left as they are.
    @discardableResult
    public func reencode(
        collection: String, batchSize: Int = 500,
        progress: ((ReencodingProgress) -> Bool)? = nil
    ) throws -> ReencodingProgress {
        try gate.checkOpen()
        let chain = registry.read { $0.config(for: collection).objectChain }
        guard chain.codec.writeFormat != nil, !chain.codec.decodesToEncodedValue else {
            throw DatabaseError(
                .misuse,
                "re-encoding needs the collection's Codable type: register it (registerCodable or register) first",
                collection: collection)
        }
        return try rewriteRows(
            of: collection, record: ReadWriteTransaction.reencodingRecord, batchSize: batchSize, progress: progress
        ) { tx, blob, chain, ck, what in
            try tx.reencoded(blob, chain: chain, ck, what: what)
        }
    }
}

extension ReadWriteTransaction {
    static let reencodingRecord = "coffer.reencode"

    /// The blob with its value in the format the chain's codec writes, or nil when it already is
    /// (or the chain has no Codable codec that knows its type, as metadata often has not).
    func reencoded(_ blob: Data?, chain: SerializerChain, _ ck: CollectionKey, what: String) throws -> Data? {
        guard let blob, let target = chain.codec.writeFormat, !chain.codec.decodesToEncodedValue else { return nil }
        do {
            let codecBytes =
                chain.stages.isEmpty ? blob : try chain.undoStages(of: blob, collection: ck.collection, key: ck.key)
            guard CodableFormat.detect(codecBytes) != target else { return nil }
            let value = try chain.codec.decode(codecBytes)
            return try chain.serialize(value, collection: ck.collection, key: ck.key)
        } catch {
            throw Self.serializationError(error, "cannot re-encode the stored \(what)", ck)
        }
    }
}
