import CofferSQLite
import Foundation

/// Enumerations over a given list of keys: cached rows first, the rest fetched in batches,
/// missing rows reported with nil. The order of calls is unspecified; `index` is the key's
/// position in `keys`.
///
/// Like every enumeration, changing the database from the body without setting `stop` throws
/// `mutationDuringEnumeration` (touches are allowed): a fetched batch would otherwise hand out,
/// and cache, rows the body has already removed or rewritten.
extension ReadTransaction {
    /// Calls `body` once per key with its index in `keys` and its object (nil when absent).
    public func enumerateObjects(
        forKeys keys: [String], inCollection collection: String?,
        _ body: (_ index: Int, _ object: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateRows(forKeys: keys, inCollection: collection, wantObject: true, wantMetadata: false) {
            index, object, _, stop in try body(index, object, &stop)
        }
    }

    /// Calls `body` once per key with its index in `keys` and its metadata (nil when absent or none).
    public func enumerateMetadata(
        forKeys keys: [String], inCollection collection: String?,
        _ body: (_ index: Int, _ metadata: (any Sendable)?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateRows(forKeys: keys, inCollection: collection, wantObject: false, wantMetadata: true) {
            index, _, metadata, stop in try body(index, metadata, &stop)
        }
    }

    /// Calls `body` once per key with its index in `keys`, object and metadata (nil when absent).
    public func enumerateRows(
        forKeys keys: [String], inCollection collection: String?,
        _ body: (_ index: Int, _ object: (any Sendable)?, _ metadata: (any Sendable)?, _ stop: inout Bool) throws
            -> Void
    ) throws {
        try enumerateRows(forKeys: keys, inCollection: collection, wantObject: true, wantMetadata: true, body)
    }

    /// SQLite 3.15.2 allows 999 parameters per statement; one is the collection.
    static let keyBatchSize = 500

    private func enumerateRows(
        forKeys keys: [String], inCollection collection: String?, wantObject: Bool, wantMetadata: Bool,
        _ body: (Int, (any Sendable)?, (any Sendable)?, inout Bool) throws -> Void
    ) throws {
        try checkActive()
        let collection = collection ?? ""
        var stop = false
        let mutations = core.mutationCount
        /// Calls `body`; true when the enumeration must end (stop set), throws on a mutation.
        func report(_ index: Int, _ object: (any Sendable)?, _ metadata: (any Sendable)?) throws -> Bool {
            try body(index, object, metadata, &stop)
            if stop { return true }
            guard core.mutationCount == mutations else { throw Self.mutationDuringEnumeration() }
            return false
        }
        // Keyed by CollectionKey, which compares bytes as SQLite does: two canonically equivalent
        // spellings of a key are two rows, which a [String: …] would merge.
        var missing: [CollectionKey: [Int]] = [:]
        for (index, key) in keys.enumerated() {
            let ck = CollectionKey(collection: collection, key: key)
            let object = wantObject && core.config.objectCacheEnabled ? core.objectCache.object(forKey: ck) : nil
            let metadata = wantMetadata && core.config.metadataCacheEnabled ? core.metadataCache.value(forKey: ck) : nil
            if (!wantObject || object != nil) && (!wantMetadata || metadata != nil) {
                if try report(index, object, metadata ?? nil) { return }
            } else {
                missing[ck, default: []].append(index)
            }
        }
        let pendingKeys = missing.keys.map(\.key)
        var batchStart = 0
        while batchStart < pendingKeys.count {
            let batch = pendingKeys[batchStart..<min(batchStart + Self.keyBatchSize, pendingKeys.count)]
            batchStart += batch.count
            let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            let sql =
                #"SELECT "key", "data", "metadata" FROM "database2" WHERE "collection" = ? AND "key" IN ("#
                + placeholders + ")"
            var rows: [(String, Data?, Data?)] = []
            try mapSQLite(collection: collection) {
                let stmt = try sqlite.cachedStatement(sql)
                defer { stmt.reset() }
                try stmt.bind(collection, at: 1)
                for (offset, key) in batch.enumerated() { try stmt.bind(key, at: Int32(offset + 2)) }
                while try stmt.step() { rows.append((stmt.text(0), stmt.data(1), stmt.data(2))) }
            }
            for (key, data, metadataData) in rows {
                let ck = CollectionKey(collection: collection, key: key)
                var object: (any Sendable)?
                var metadata: (any Sendable)?
                if wantObject {
                    if core.config.objectCacheEnabled, let cached = core.objectCache.object(forKey: ck) {
                        object = cached
                    } else {
                        let decoded = try decodeObject(data ?? Data(), ck)
                        if core.config.objectCacheEnabled { core.objectCache.setObject(decoded, forKey: ck) }
                        object = decoded
                    }
                }
                if wantMetadata {
                    let decoded = try metadataData.map { try decodeMetadata($0, ck) }
                    if core.config.metadataCacheEnabled { core.metadataCache.setValue(decoded, forKey: ck) }
                    metadata = decoded
                }
                for index in missing.removeValue(forKey: ck) ?? [] {
                    if try report(index, object, metadata) { return }
                }
            }
        }
        for index in missing.values.joined() {
            if try report(index, nil, nil) { return }
        }
    }
}
