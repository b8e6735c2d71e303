import CofferFixtureSupport
import Coffer
import Foundation

/// Reads every row of a database in a fixed order — collections sorted, keys sorted, object
/// then metadata — so damage that poisons the rest of a transaction is reported the same way
/// on every run.
struct RowReader {
    /// One row read back.
    struct Row {
        var object: JSONValue
        var objectBytes: Data?
        var metadata: JSONValue?
        var metadataBytes: Data?
    }

    /// Rows that read, by `collection/key`, and the columns that failed, by `collection/key.column`.
    struct Result {
        var rows: [String: Row] = [:]
        var errors: [String: FixtureError] = [:]
    }

    let serializers: [FixtureSerializers]

    /// Reads every row; errors of a single row's column are collected, anything else is thrown.
    /// - Throws: ``DatabaseError`` when listing fails, ``FixtureFailure`` for a collection without a chain.
    func readAll(_ tx: ReadTransaction) throws -> Result {
        var result = Result()
        for collection in try tx.allCollections().sorted() {
            let chains = serializers.first { $0.collection == collection }
            for key in try tx.allKeys(inCollection: collection).sorted() {
                guard let chains else {
                    throw FixtureFailure("collection \"\(collection)\" has no chain in the manifest")
                }
                let id = "\(collection)/\(key)"
                var row = Row(object: .null)
                var failed = false
                do {
                    if let object = try tx.object(forKey: key, inCollection: collection) {
                        row.object = try FixtureCodecs.json(object, codec: chains.object.codec)
                        row.objectBytes = try tx.serializedObject(forKey: key, inCollection: collection)
                    }
                } catch let error as DatabaseError {
                    result.errors["\(id).object"] = FixtureCodecs.error(error)
                    failed = true
                }
                do {
                    if let metadata = try tx.metadata(forKey: key, inCollection: collection) {
                        guard let chain = chains.metadata else {
                            throw FixtureFailure("\(id) has metadata but its collection has no metadata chain")
                        }
                        row.metadata = try FixtureCodecs.json(metadata, codec: chain.codec)
                        row.metadataBytes = try tx.serializedMetadata(forKey: key, inCollection: collection)
                    }
                } catch let error as DatabaseError {
                    result.errors["\(id).metadata"] = FixtureCodecs.error(error)
                    failed = true
                }
                if !failed { result.rows[id] = row }
            }
        }
        return result
    }
}
