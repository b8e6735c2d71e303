import Coffer
import Foundation

/// Edits stored blobs of a fixture copy through Coffer, bypassing the chains: bytes are read
/// with `serializedObjectAndMetadata` and written back verbatim with `setObject(…serializedObject:…)`.
final class BlobSurgery {
    private var database: Database?
    private var connection: Connection?
    private let url: URL

    /// Opens the copy at `url` with the recipe's key, settings and chains.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    init(url: URL, recipe: FixtureDatabase.Recipe, keyFileURL: (String) -> URL) throws {
        self.url = url
        var options = DatabaseOptions()
        options.key = recipe.key.databaseKey(keyFileURL: keyFileURL)
        options.cipher = recipe.cipher.settings
        let database = try Database(url: url, options: options)
        try database.register(recipe.serializers, keyrings: try recipe.keyrings.mapValues { try $0.keyring() })
        self.database = database
        connection = try database.newConnection()
    }

    private func open() throws -> Connection {
        guard let connection else { throw GeneratorError("\(url.lastPathComponent) is closed") }
        return connection
    }

    /// Replaces the stored object blob of a row with `transform` of it, keeping its metadata bytes.
    /// - Throws: ``GeneratorError`` when the row does not exist, or ``DatabaseError``.
    func rewriteObject(_ collection: String, _ key: String, _ transform: (Data) throws -> Data) throws {
        try open().readWrite { tx in
            guard let stored = try tx.serializedObjectAndMetadata(forKey: key, inCollection: collection) else {
                throw GeneratorError("no row \(collection)/\(key)")
            }
            let bytes = try transform(stored.object)
            try tx.setObject(
                bytes, forKey: key, inCollection: collection, withMetadata: stored.metadata, serializedObject: bytes,
                serializedMetadata: stored.metadata)
        }
    }

    /// Replaces the stored metadata blob of a row with `transform` of it.
    /// - Throws: ``GeneratorError`` when the row or its metadata does not exist, or ``DatabaseError``.
    func rewriteMetadata(_ collection: String, _ key: String, _ transform: (Data) throws -> Data) throws {
        try open().readWrite { tx in
            guard let stored = try tx.serializedObjectAndMetadata(forKey: key, inCollection: collection),
                let metadata = stored.metadata
            else { throw GeneratorError("no metadata for \(collection)/\(key)") }
            let bytes = try transform(metadata)
            try tx.setObject(
                stored.object, forKey: key, inCollection: collection, withMetadata: bytes,
                serializedObject: stored.object, serializedMetadata: bytes)
        }
    }

    /// Swaps the stored object blobs of two rows of one collection.
    /// - Throws: ``GeneratorError`` when a row does not exist, or ``DatabaseError``.
    func swapObjects(_ collection: String, _ first: String, _ second: String) throws {
        try open().readWrite { tx in
            guard let a = try tx.serializedObjectAndMetadata(forKey: first, inCollection: collection),
                let b = try tx.serializedObjectAndMetadata(forKey: second, inCollection: collection)
            else { throw GeneratorError("missing rows in \(collection)") }
            try tx.setObject(
                b.object, forKey: first, inCollection: collection, withMetadata: a.metadata, serializedObject: b.object,
                serializedMetadata: a.metadata)
            try tx.setObject(
                a.object, forKey: second, inCollection: collection, withMetadata: b.metadata,
                serializedObject: a.object,
                serializedMetadata: b.metadata)
        }
    }

    /// Stores `bytes` as the object of a new row, exactly as given.
    /// - Throws: ``DatabaseError``.
    func insertRaw(_ collection: String, _ key: String, _ bytes: Data) throws {
        try open().readWrite { tx in
            try tx.setObject(
                bytes, forKey: key, inCollection: collection, withMetadata: nil, serializedObject: bytes,
                serializedMetadata: nil)
        }
    }

    /// Writes rows through their chains, as an application would.
    /// - Throws: ``DatabaseError``.
    func write(_ rows: [FixtureRow]) throws {
        try open().readWrite { tx in
            for row in rows {
                try tx.setObject(row.object, forKey: row.key, inCollection: row.collection, withMetadata: row.metadata)
            }
        }
    }

    /// Closes the copy; the WAL is checkpointed and removed.
    /// - Throws: ``GeneratorError`` when a `-wal` is left behind.
    func close() throws {
        connection = nil
        database = nil
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            let size = try FixtureStage.size(of: URL(fileURLWithPath: url.path + suffix))
            guard suffix == "-shm" || size == 0 else {
                throw GeneratorError("\(url.lastPathComponent)\(suffix) is left after closing")
            }
            try FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
