import Coffer
import Foundation

/// A Coffer database being written as a fixture, remembering what it must hold.
///
/// Rows are written through the registered chains exactly as an application would; the
/// expected contents come from the values written (not from reading the file back), and the
/// stored bytes are read back only to pin blob headers.
final class FixtureDatabase {
    /// The recipe of a database fixture.
    struct Recipe {
        var key: KeySpec
        var cipher: CipherSpec
        var keyrings: [String: KeyringSpec] = [:]
        var serializers: [CollectionSerializers] = []
    }

    let url: URL
    private(set) var recipe: Recipe
    let keyrings: [String: Keyring]
    private(set) var database: Database?
    private(set) var connection: Connection?
    private var written: [String: [String: FixtureRow]] = [:]

    /// Creates the database at `url` (which must not exist) and registers the recipe's chains.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    init(url: URL, recipe: Recipe, keyFileURL: (String) -> URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw GeneratorError("\(url.path) exists")
        }
        self.url = url
        self.recipe = recipe
        keyrings = try recipe.keyrings.mapValues { try $0.keyring() }
        var options = DatabaseOptions()
        options.key = recipe.key.databaseKey(keyFileURL: keyFileURL)
        options.cipher = recipe.cipher.settings
        let database = try Database(url: url, options: options)
        try database.register(recipe.serializers, keyrings: keyrings)
        self.database = database
        connection = try database.newConnection()
    }

    /// The open database.
    /// - Throws: ``GeneratorError`` after ``close()``.
    func open() throws -> Database {
        guard let database else { throw GeneratorError("\(url.lastPathComponent) is closed") }
        return database
    }

    /// Writes `rows` in one transaction.
    /// - Throws: ``DatabaseError``.
    func write(_ rows: [FixtureRow]) throws {
        guard let connection else { throw GeneratorError("\(url.lastPathComponent) is closed") }
        try connection.readWrite { tx in
            for row in rows {
                try tx.setObject(row.object, forKey: row.key, inCollection: row.collection, withMetadata: row.metadata)
            }
        }
        for row in rows { written[row.collection, default: [:]][row.key] = row }
    }

    /// Removes a row in its own transaction.
    /// - Throws: ``DatabaseError``.
    func remove(_ key: String, inCollection collection: String) throws {
        guard let connection else { throw GeneratorError("\(url.lastPathComponent) is closed") }
        try connection.readWrite { tx in try tx.removeObject(forKey: key, inCollection: collection) }
        written[collection]?[key] = nil
    }

    /// The rows written so far (last write wins), in manifest order.
    var rows: [FixtureRow] {
        written.values.flatMap(\.values).sorted {
            FixtureRow.manifestOrder(($0.collection, $0.key), ($1.collection, $1.key))
        }
    }

    /// Makes key `id` current in keyring `name`: later writes are encrypted under it.
    /// - Throws: ``GeneratorError`` or ``SerializationError``.
    func makeCurrent(_ id: UInt32, inKeyring name: String) throws {
        guard let keyring = keyrings[name], recipe.keyrings[name] != nil else {
            throw GeneratorError("no keyring named \(name)")
        }
        try keyring.setCurrent(id)
        recipe.keyrings[name]?.current = id
    }

    /// Every row written, in manifest order, with decoded values and pinned blob bytes.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    func expectedRows() throws -> [RowSpec] {
        guard let connection else { throw GeneratorError("\(url.lastPathComponent) is closed") }
        let rows = self.rows
        return try connection.read { tx in
            try rows.map { row in
                let stored = try tx.serializedObjectAndMetadata(forKey: row.key, inCollection: row.collection)
                guard let stored else { throw GeneratorError("row \(row.collection)/\(row.key) was not written") }
                let chains = try self.chains(for: row.collection)
                var spec = RowSpec(
                    collection: row.collection, key: row.key, object: try chains.object.codec.json(row.object))
                (spec.objectBytesHex, spec.objectHeaderHex) = BlobBytes.pin(stored.object)
                if let metadata = row.metadata {
                    guard let metadataChain = chains.metadata, let bytes = stored.metadata else {
                        throw GeneratorError("row \(row.collection)/\(row.key) has metadata without a metadata chain")
                    }
                    spec.metadata = try metadataChain.codec.json(metadata)
                    (spec.metadataBytesHex, spec.metadataHeaderHex) = BlobBytes.pin(bytes)
                }
                return spec
            }
        }
    }

    /// Reads every written row back through Coffer and compares it with what was written.
    /// - Throws: ``GeneratorError`` on any difference.
    func verifyReadBack() throws {
        guard let connection else { throw GeneratorError("\(url.lastPathComponent) is closed") }
        try connection.read { tx in
            for row in written.values.flatMap(\.values) {
                let chains = try self.chains(for: row.collection)
                let object = try tx.object(forKey: row.key, inCollection: row.collection)
                guard let object, try chains.object.codec.json(object) == chains.object.codec.json(row.object) else {
                    throw GeneratorError("row \(row.collection)/\(row.key) does not read back")
                }
                if let metadata = row.metadata, let chain = chains.metadata {
                    let read = try tx.metadata(forKey: row.key, inCollection: row.collection)
                    guard let read, try chain.codec.json(read) == chain.codec.json(metadata) else {
                        throw GeneratorError("metadata of \(row.collection)/\(row.key) does not read back")
                    }
                }
            }
        }
    }

    /// The committed snapshot number.
    /// - Throws: ``GeneratorError`` after ``close()``.
    func snapshot() throws -> UInt64 { try open().snapshot }

    /// The file's page size.
    /// - Throws: ``GeneratorError`` after ``close()``.
    func pageSize() throws -> Int { try open().pageSize }

    /// Closes the database; the last handle checkpoints the WAL and removes it.
    /// - Throws: ``GeneratorError`` when a `-wal` is left behind.
    func close() throws {
        connection = nil
        database = nil
        // One of Coffer's queues can hold the database for a moment after the last reference here
        // goes away; the final checkpoint runs when it lets go.
        guard Database.waitUntilClosed(url) else { throw GeneratorError("\(url.lastPathComponent) does not close") }
        for suffix in ["-wal", "-shm"] {
            let sidecar = url.path + suffix
            if FileManager.default.fileExists(atPath: sidecar) {
                // An empty leftover is harmless; anything else means the file is not self-contained.
                let size = (try? FileManager.default.attributesOfItem(atPath: sidecar)[.size] as? Int) ?? 0
                guard suffix == "-shm" || size == 0 else {
                    throw GeneratorError("\(url.lastPathComponent)\(suffix) is left after closing (\(size) bytes)")
                }
                try FileManager.default.removeItem(atPath: sidecar)
            }
        }
    }

    private func chains(for collection: String) throws -> CollectionSerializers {
        guard let chains = recipe.serializers.first(where: { $0.collection == collection }) else {
            throw GeneratorError("collection \"\(collection)\" has no chain in the recipe")
        }
        return chains
    }
}
